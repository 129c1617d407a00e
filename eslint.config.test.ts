// The layering rules of eslint.config.mjs, run against code that breaks each one (linted as if it were a file at the
// given path), so a rule that stops matching (a moved folder, a broken pattern) fails here instead of passing silently.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mappedFiles, mutualFolderPairs } from "./devtools/layers/import-graph";
import { PAYMENT_STATES } from "./server/ledger/payment-states";

const CONFIG_PATH = "./eslint.config.mjs";
type Rules = Record<string, string>;
const config = (await import(/* @vite-ignore */ CONFIG_PATH)) as {
  TYPE_AWARE_RULES: Rules;
  TYPE_AWARE_PRODUCTION_RULES: Rules;
  WITHOUT_TYPES: ESLint.Options["overrideConfig"];
};
// The probes below test rules that read no types: they lint without the TypeScript program.
const eslint = new ESLint({ cwd: import.meta.dirname, overrideConfig: config.WITHOUT_TYPES });

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
    const code =
      'import { sha256 } from "@noble/hashes/sha2.js";\nimport bs58 from "bs58";\nimport { canonicalJson } from "./canonical-json";\nexport const probe = [sha256, bs58, canonicalJson];\n';
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
    expect(
      messages.some((m) => m.includes(reason)),
      messages.join("; "),
    ).toBe(true);
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
    [
      "server/ledger/probe.ts",
      "export const probe = (db: any) => db.$executeRaw`UPDATE payments SET status = 'served' WHERE id = ${1}`;",
    ],
    [
      "server/reconcile/probe.ts",
      "export const probe = (db: any) => db.$executeRaw`INSERT INTO payments (id) VALUES (${1})`;",
    ],
    [
      "app/api/probe/route.ts",
      "export const probe = (db: any) => db.$executeRaw`delete from payments where id = ${1}`;",
    ],
    ["server/health/probe.ts", "export const probe = (db: any) => db.payment.updateMany({ where: {}, data: {} });"],
    ["bin/probe.ts", "export const probe = (db: any) => db.payment.create({ data: {} });"],
  ])("refuses a payment write in %s", async (filePath, code) => {
    const messages = await rules(filePath, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("server/payments/payment-store.ts");
  });

  it.each(PAYMENT_STATES)(
    "refuses the payment state %s spelled as a literal outside server/payments",
    async (state) => {
      const messages = await rules("server/reconcile/probe.ts", `export const probe = { status: "${state}" };`);
      expect(messages).toEqual([expect.stringContaining("payment-states.ts")]);
    },
  );

  it("accepts the store's own writes, reads elsewhere, and other tables' writes", async () => {
    expect(
      await rules(
        "server/payments/payment-store.ts",
        "export const probe = (db: any) => db.$executeRaw`UPDATE payments SET status = 'served'`;",
      ),
    ).toEqual([]);
    expect(
      await rules("server/health/probe.ts", "export const probe = (db: any) => db.payment.findMany({ where: {} });"),
    ).toEqual([]);
    expect(
      await rules(
        "server/ledger/probe.ts",
        "export const probe = (db: any) => db.$executeRaw`UPDATE balances SET units = 0`;",
      ),
    ).toEqual([]);
  });
});

describe("eslint layering: the layer map", () => {
  /** The layers/downward messages for `code` as the file `filePath`. */
  const upward = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(`${code}\nexport const probe = 1;\n`, { filePath });
    expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
    return result!.messages.filter((m) => m.ruleId === "layers/downward").map((m) => m.message);
  };
  const configPath = "./eslint.config.mjs";
  const config = async () =>
    (await import(/* @vite-ignore */ configPath)) as {
      LAYERS: { name: string; folders: string[] }[];
      MUTUAL_FOLDERS: { folders: [string, string]; why: string }[];
      folderOf: (file: string) => string;
      layerOf: (file: string) => number;
    };

  it.each([
    ["server/verify/probe.ts", 'import { signReceipt } from "../receipts/sign-receipt";', "layer trust"],
    ["server/settings/probe.ts", 'import { createServiceKeys } from "@/server/keys/service-keys";', "layer trust"],
    ["server/receipts/probe.ts", 'const later = () => import("../ledger/credit-agent");', "layer money"],
    ["server/x402/probe.ts", 'export { serveCall } from "../pipeline/serve-call";', "layer money"],
    ["server/payments/probe.ts", 'import { servePaidChat } from "../chat/serve-paid-chat";', "layer services"],
    ["server/pipeline/probe.ts", 'import { routeRuntime } from "../runtime/route-edge";', "layer runtime"],
    ["server/health/probe.ts", 'import { GET } from "@/app/api/health/route";', "layer app"],
  ])("refuses %s importing upward: %s", async (filePath, code, reason) => {
    const messages = await upward(filePath, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(reason);
  });

  it("accepts imports down the map, within a layer in either direction, and the runtime's types", async () => {
    expect(
      await upward(
        "server/payments/probe.ts",
        'import { creditAgent } from "../ledger/credit-agent";\nimport { serveCall } from "../pipeline/serve-call";',
      ),
    ).toEqual([]);
    expect(
      await upward(
        "server/ledger/probe.ts",
        'import { admitPayment } from "../payments/admit-payment";\nimport { db } from "@/server/db";',
      ),
    ).toEqual([]);
    expect(
      await upward(
        "server/pipeline/probe.ts",
        'import type { AppContext } from "../context/app-context";\nimport { type AppContext as Ctx } from "../context/app-context";',
      ),
    ).toEqual([]);
    expect(
      await upward("app/api/probe/route.ts", 'import { servePaidChat } from "@/server/chat/serve-paid-chat";'),
    ).toEqual([]);
  });

  it("refuses devtools/ in server/ and app/, and lets devtools/ and bin/ use it", async () => {
    for (const [filePath, code] of [
      ["server/env/probe.ts", 'import { parseFaultProfile } from "../../devtools/localnet/fault-profile";'],
      ["server/chain/probe.ts", 'import { startLocalnet } from "@/devtools/localnet";'],
      ["app/api/probe/route.ts", 'import { startLocalnet } from "@/devtools/localnet";'],
    ]) {
      const messages = await upward(filePath!, code!);
      expect(messages, filePath).toEqual([expect.stringContaining("never import devtools/")]);
    }
    expect(
      await upward(
        "devtools/soak/probe.ts",
        'import { startLocalnet } from "../localnet";\nimport { db } from "@/server/db";',
      ),
    ).toEqual([]);
    expect(await upward("bin/probe.ts", 'import { startLocalnet } from "../devtools/localnet";')).toEqual([]);
  });

  it("refuses a file whose folder is in no layer, and a module left at the top of server/", async () => {
    expect(await upward("server/new-folder/probe.ts", 'import { db } from "@/server/db";')).toEqual([
      expect.stringContaining("server/new-folder is in no layer"),
    ]);
    expect(await upward("server/probe.ts", "")).toEqual([expect.stringContaining("server is in no layer")]);
  });

  it("places every folder of production code in exactly one layer, and lists no folder that is gone", async () => {
    const { LAYERS, folderOf, layerOf } = await config();
    const files = mappedFiles();
    expect(files.filter((file) => layerOf(file) === -1)).toEqual([]);
    const listed = LAYERS.flatMap((layer) => layer.folders);
    expect(listed.length).toBe(new Set(listed).size);
    const present = new Set(files.map(folderOf));
    // server/generated is written by `prisma generate`, not read for imports.
    expect(listed.filter((folder) => !present.has(folder) && folder !== "server/generated")).toEqual([]);
    expect(LAYERS.length).toBeLessThanOrEqual(10);
  });

  it("keeps every route's request and response schema module in server/schemas, under the paid-route registry", async () => {
    const { folderOf } = await config();
    const schemas = mappedFiles().filter((file) => /-(request-schema|response-body|response-schemas)\.ts$/.test(file));
    expect(schemas.length).toBeGreaterThan(4);
    expect(schemas.filter((file) => folderOf(file) !== "server/schemas")).toEqual([]);
  });

  it("finds no folder pairs importing each other but those MUTUAL_FOLDERS explains (at most 3)", async () => {
    const { MUTUAL_FOLDERS, folderOf } = await config();
    const key = (folders: string[]) => [...folders].sort().join(" <-> ");
    const measured = mutualFolderPairs(folderOf).map((pair) => key(pair.folders));
    expect(measured.sort()).toEqual(MUTUAL_FOLDERS.map((m) => key(m.folders)).sort());
    expect(MUTUAL_FOLDERS.length).toBeLessThanOrEqual(3);
    for (const pair of MUTUAL_FOLDERS) expect(pair.why.length).toBeGreaterThan(20);
  });
});

describe("eslint: no import cycles", () => {
  const dir = path.join(import.meta.dirname, "server/__cycle_probe__");
  const write = (name: string, text: string) => writeFileSync(path.join(dir, name), `${text}\n`);

  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    write("cycle-a.ts", 'import { b } from "./cycle-b";\nexport const a = () => b;');
    write("cycle-b.ts", 'import { a } from "./cycle-a";\nexport const b = () => a;');
    write("line-a.ts", 'import { b } from "./line-b";\nexport const a = () => b;');
    write("line-b.ts", 'import type { a } from "./line-a";\nexport const b = (_: typeof a | null) => 1;');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The probe folder is in the config's ignores (a lint run at the same moment must not see it): lint it regardless.
  const probeLinter = new ESLint({ cwd: import.meta.dirname, ignore: false, overrideConfig: config.WITHOUT_TYPES });
  const cycles = async (name: string) => {
    const [result] = await probeLinter.lintFiles([path.join(dir, name)]);
    expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
    return result!.messages.filter((m) => m.ruleId === "import-x/no-cycle");
  };

  it("refuses two files that import each other", async () => {
    expect(await cycles("cycle-a.ts")).toHaveLength(1);
  });

  it("accepts a one-way import, and a type-only import back (erased at compile time)", async () => {
    expect(await cycles("line-a.ts")).toEqual([]);
    expect(await cycles("line-b.ts")).toEqual([]);
  });
});

describe("eslint: type-aware rules", () => {
  // A probe folder with its own small tsconfig.json, which the project service picks for the files in it: the rules
  // get type information without the repository's program. The folder is in the config's ignores, like the cycles'.
  const dir = path.join(import.meta.dirname, "server/__cycle_probe__/typed");
  const compilerOptions = {
    strict: true,
    target: "ES2022",
    lib: ["ES2023", "DOM"],
    types: [],
    noEmit: true,
    skipLibCheck: true,
  };
  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const probeLinter = new ESLint({ cwd: import.meta.dirname, ignore: false });
  /** The rules reported for `code` as a file of the probe folder, as `line: rule`. */
  const reported = async (name: string, code: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, code);
    const [result] = await probeLinter.lintFiles([file]);
    expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
    return result!.messages.map((m) => `${m.line}: ${m.ruleId}`);
  };
  const work = 'const work = async (): Promise<number> => 1;\ntype Shape = "circle" | "square";\n';

  it("refuses a floating promise, a promise where a void callback is expected, and a switch that misses a member", async () => {
    const code =
      work +
      "export function floating(): void {\n  work();\n}\n" +
      "export const misused = (items: number[]) => items.forEach(async () => {\n  await work();\n});\n" +
      'export function missing(s: Shape): number {\n  switch (s) {\n    case "circle":\n      return 1;\n  }\n  return 0;\n}\n' +
      'export function hidden(s: Shape): number {\n  switch (s) {\n    case "circle":\n      return 1;\n    default:\n      return 0;\n  }\n}\n';
    expect(await reported("refused.ts", code)).toEqual([
      "4: @typescript-eslint/no-floating-promises",
      "6: @typescript-eslint/no-misused-promises",
      "10: @typescript-eslint/switch-exhaustiveness-check",
      "17: @typescript-eslint/switch-exhaustiveness-check",
    ]);
  });

  it("accepts an awaited promise, a rejection handled in a deliberate void, and a switch naming every member", async () => {
    const code =
      work +
      "export async function awaited(): Promise<number> {\n  void work().catch(() => undefined);\n  return await work();\n}\n" +
      'export function total(s: Shape): number {\n  switch (s) {\n    case "circle":\n      return 1;\n    case "square":\n      return 2;\n  }\n}\n';
    expect(await reported("accepted.ts", code)).toEqual([]);
  });
});
