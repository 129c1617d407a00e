// ESLint (flat config): a recommended base the codebase passes, plus the layering rules the tools enforce:
// server/verify runs unchanged in the browser, and client components import nothing that only a server has.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

const ROOT = import.meta.dirname;

/** Node's built-in modules, bare (`fs`, `fs/promises`) and prefixed (`node:*`). */
const nodeBuiltins = (where) => ({
  paths: builtinModules.filter((name) => !name.startsWith("_")).map((name) => ({ name, message: `${where}: no Node built-ins.` })),
  patterns: [{ regex: "^node:", message: `${where}: no Node built-ins.` }],
});

/** Prisma, its generated client, the PostgreSQL driver and the `server-only` marker: none exists in a browser. */
const serverPackages = (where) => [
  { regex: "^@prisma/", message: `${where}: no Prisma.` },
  { regex: "(^|/)generated/prisma(/|$)", message: `${where}: no Prisma client.` },
  { regex: "^pg(/|$)", message: `${where}: no PostgreSQL driver.` },
  { regex: "^server-only$", message: `${where}: server-only modules never reach the browser.` },
];

const VERIFY = "server/verify is browser-safe";
const verifyImports = {
  paths: nodeBuiltins(VERIFY).paths,
  patterns: [
    ...nodeBuiltins(VERIFY).patterns,
    ...serverPackages(VERIFY),
    { regex: "^next(/|$)", message: `${VERIFY}: no Next.js.` },
    { regex: "(^|/)env(\\.[cm]?[jt]s)?$", message: `${VERIFY}: no process environment; take values as arguments.` },
  ],
};

const CLIENT = "client components run in the browser";
const clientImports = {
  paths: nodeBuiltins(CLIENT).paths,
  patterns: [
    ...nodeBuiltins(CLIENT).patterns,
    ...serverPackages(CLIENT),
    {
      // Server modules hold secrets, the database and Node APIs; only the pure verifier (and types) may be imported.
      regex: "^(@/|(\\.\\./)+)server/(?!verify(/|$))",
      allowTypeImports: true,
      message: `${CLIENT}: import only @/server/verify from server/ (or \`import type\`).`,
    },
  ],
};

/** Files under app/ that open with the "use client" directive: the Next.js client components. */
function clientComponents(dir = path.join(ROOT, "app")) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...clientComponents(full));
    else if (/\.[jt]sx?$/.test(entry.name) && /^\s*(\/\/[^\n]*\n\s*)*["']use client["']/.test(readFileSync(full, "utf8"))) {
      found.push(path.relative(ROOT, full));
    }
  }
  return found;
}

const PAYMENTS = "payment rows are written only by server/payments/payment-store.ts (its moves follow payment-states.ts)";
/** Statements and Prisma calls that write the payments table, and a payment state spelled out as a literal. */
const paymentWrites = [
  { selector: "TemplateElement[value.raw=/\\b(UPDATE|INSERT\\s+INTO|DELETE\\s+FROM)\\s+payments\\b/i]", message: `${PAYMENTS}.` },
  {
    selector: "CallExpression[callee.property.name=/^(create|createMany|update|updateMany|upsert|delete|deleteMany)$/][callee.object.property.name='payment']",
    message: `${PAYMENTS}.`,
  },
  {
    selector: "Property[key.name='status'] > Literal[value=/^(claimed|pending|settled|serving|served|unserved|failed|expired)$/]",
    message: "name a payment state through server/payments/payment-states.ts (STATE, LANDED_STATES), never as a literal.",
  },
];

export default defineConfig(
  { ignores: ["node_modules/", ".next*/", ".data/", "server/generated/", "test-results/", "playwright-report/", "bench/tmp/", "next-env.d.ts"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: "module" },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // TypeScript checks names (and globals differ between Node, the browser and the config files).
      "no-undef": "off",
      // Unused variables are errors, except the `_`-prefixed ones kept on purpose (and rest siblings that drop a key).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true }],
    },
  },
  {
    files: ["server/**/*.ts", "bin/**/*.ts"],
    ignores: ["server/payments/**", "server/test/**", "**/*.test.ts", "server/generated/**"],
    rules: { "no-restricted-syntax": ["error", ...paymentWrites] },
  },
  {
    // Pages and route handlers reach payments only through server/: no write of their own (their `status` fields are
    // other things').
    files: ["app/**/*.{ts,tsx}"],
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-syntax": ["error", ...paymentWrites.slice(0, 2)] },
  },
  {
    files: ["server/verify/**/*.{ts,tsx}"],
    ignores: ["server/verify/**/*.test.ts", "server/verify/fixtures/**"],
    rules: { "no-restricted-imports": ["error", verifyImports] },
  },
  {
    files: ["app/_client/**/*.{ts,tsx}", ...clientComponents()],
    // Their unit tests run in Node and may compare with the server's own code.
    ignores: ["app/**/*.test.ts"],
    rules: { "no-restricted-imports": ["error", clientImports] },
  },
);
