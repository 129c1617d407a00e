// The layering rules of eslint.config.mjs, run against code that breaks each one (linted as if it were a file at the
// given path), so a rule that stops matching (a moved folder, a broken pattern) fails here instead of passing silently.
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const eslint = new ESLint({ cwd: import.meta.dirname });

/** The no-restricted-imports messages ESLint reports for `code` as the file `filePath`. */
async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

const VERIFY_FILE = "server/verify/layering-probe.ts";
const CLIENT_FILE = "app/_client/layering-probe.tsx";

describe("eslint layering: server/verify", () => {
  it.each([
    ['import { readFileSync } from "node:fs";', "no Node built-ins"],
    ['import fs from "fs";', "no Node built-ins"],
    ['import { readFile } from "fs/promises";', "no Node built-ins"],
    ['import { createHash } from "crypto";', "no Node built-ins"],
    ['import path from "path";', "no Node built-ins"],
    ['import { NextResponse } from "next/server";', "no Next.js"],
    ['import next from "next";', "no Next.js"],
    ['import { PrismaClient } from "@prisma/client";', "no Prisma"],
    ['import { Prisma } from "../generated/prisma/client";', "no Prisma client"],
    ['import "server-only";', "server-only"],
    ['import { config } from "../env";', "no process environment"],
    ['import { config } from "@/server/env";', "no process environment"],
    ['import pg from "pg";', "no PostgreSQL driver"],
  ])("rejects %s", async (code, reason) => {
    const messages = await restrictedImports(VERIFY_FILE, `${code}\nexport const probe = 1;\n`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(reason);
  });

  it("accepts relative imports, @noble/* and bs58", async () => {
    const code = 'import { sha256 } from "@noble/hashes/sha2.js";\nimport bs58 from "bs58";\nimport { canonicalJson } from "./canonical-json";\nexport const probe = [sha256, bs58, canonicalJson];\n';
    expect(await restrictedImports(VERIFY_FILE, code)).toEqual([]);
  });
});

describe("eslint layering: client components", () => {
  it.each([
    ['import { db } from "@/server/db";', "import only @/server/verify"],
    ['import { config } from "../../server/env";', "import only @/server/verify"],
    ['import { appRouter } from "@/server/trpc/root";', "import only @/server/verify"],
    ['import { readFileSync } from "node:fs";', "no Node built-ins"],
    ['import { createHash } from "crypto";', "no Node built-ins"],
    ['import { PrismaClient } from "@prisma/client";', "no Prisma"],
    ['import { Prisma } from "@/server/generated/prisma/client";', "no Prisma client"],
    ['import pg from "pg";', "no PostgreSQL driver"],
    ['import "server-only";', "server-only"],
  ])("rejects %s", async (code, reason) => {
    const messages = await restrictedImports(CLIENT_FILE, `"use client";\n${code}\nexport const probe = 1;\n`);
    expect(messages.some((m) => m.includes(reason)), messages.join("; ")).toBe(true);
  });

  it("accepts the verifier, type-only server imports and browser packages", async () => {
    const code =
      '"use client";\nimport { verifyReceipt } from "@/server/verify";\nimport { sha256Hex } from "@/server/verify/hashes";\n' +
      'import type { AppRouter } from "@/server/trpc/root";\nimport { useState } from "react";\n' +
      "export const probe: [typeof verifyReceipt, typeof sha256Hex, typeof useState, AppRouter | null] = [verifyReceipt, sha256Hex, useState, null];\n";
    expect(await restrictedImports(CLIENT_FILE, code)).toEqual([]);
  });

  it('covers a "use client" component outside app/_client and leaves server components alone', async () => {
    const code = 'import { db } from "@/server/db";\nexport const probe = db;\n';
    expect(await restrictedImports("app/grants/grant-claim.tsx", `"use client";\n${code}`)).toHaveLength(1);
    expect(await restrictedImports("app/r/[id]/page.tsx", code)).toEqual([]);
  });
});

describe("eslint: one writer of payment rows", () => {
  const rules = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath });
    expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
    return result!.messages.filter((m) => m.ruleId === "no-restricted-syntax").map((m) => m.message);
  };

  it.each([
    ["server/ledger/probe.ts", "export const probe = (db: any) => db.$executeRaw`UPDATE payments SET status = 'served' WHERE id = ${1}`;"],
    ["server/reconcile/probe.ts", "export const probe = (db: any) => db.$executeRaw`INSERT INTO payments (id) VALUES (${1})`;"],
    ["app/api/probe/route.ts", "export const probe = (db: any) => db.$executeRaw`delete from payments where id = ${1}`;"],
    ["server/health/probe.ts", "export const probe = (db: any) => db.payment.updateMany({ where: {}, data: {} });"],
    ["bin/probe.ts", "export const probe = (db: any) => db.payment.create({ data: {} });"],
  ])("refuses a payment write in %s", async (filePath, code) => {
    const messages = await rules(filePath, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("server/payments/payment-store.ts");
  });

  it("refuses a payment state spelled as a literal outside server/payments", async () => {
    const messages = await rules("server/reconcile/probe.ts", 'export const probe = { status: "unserved" };');
    expect(messages).toEqual([expect.stringContaining("payment-states.ts")]);
  });

  it("accepts the store's own writes, reads elsewhere, and other tables' writes", async () => {
    expect(await rules("server/payments/payment-store.ts", "export const probe = (db: any) => db.$executeRaw`UPDATE payments SET status = 'served'`;")).toEqual([]);
    expect(await rules("server/health/probe.ts", "export const probe = (db: any) => db.payment.findMany({ where: {} });")).toEqual([]);
    expect(await rules("server/ledger/probe.ts", "export const probe = (db: any) => db.$executeRaw`UPDATE balances SET units = 0`;")).toEqual([]);
  });
});
