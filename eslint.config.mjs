// ESLint (flat config): a recommended base the codebase passes, plus the layering rules the tools enforce:
// - LAYERS below: every import points down the layer map (or stays in its layer); no import cycle between files;
// - server/ and app/ never import devtools/;
// - server/verify runs unchanged in the browser, and client components import nothing that only a server has.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";
import ts from "typescript";

const ROOT = import.meta.dirname;

/**
 * The layer map, lowest first. Every folder of code sits in exactly one layer: a folder of the service is
 * `server/<folder>`, any other is a top-level folder (`app`, `bin`, `devtools`). A file may import its own layer and
 * the layers before it, never one after it; the one exception, `typeImports: true`, lets every layer `import type` from
 * that layer (the runtime's type is handed down; its values are not reached for). A folder in no layer is an error, so
 * a new folder is placed on purpose. Tests (`*.test.ts`, server/test/, fixtures) are outside the map.
 * docs/architecture.md's map is generated from LAYERS and MUTUAL_FOLDERS (`npm run docs`).
 */
export const LAYERS = [
  {
    name: "verify",
    folders: ["server/verify"],
    description:
      "The pure core: receipt and log verification, hashes, USDC units, the network registry. Browser-safe: no Node built-ins, Next.js, Prisma or process environment.",
  },
  {
    name: "base",
    folders: [
      "server/log",
      "server/clock",
      "server/env",
      "server/errors",
      "server/db",
      "server/generated",
      "server/settings",
      "server/metrics",
    ],
    description:
      "What every layer may use: the logger, the clock, the validated config (and the chaos suite's crash point it arms), the error table, the database client and its migrations, the Prisma client, operator settings and the metrics registry.",
  },
  {
    name: "trust",
    folders: ["server/keys", "server/receipts", "server/transparency"],
    description:
      "What makes an answer checkable: the service's keys (operator, verifier, receipt log, fee payers) and the did:web document naming them, signed receipts, and the public receipt log (tiles, checkpoints, witnesses).",
  },
  {
    name: "edge",
    folders: [
      "server/http",
      "server/schemas",
      "server/upstream",
      "server/streaming",
      "server/facilitator",
      "server/chain",
      "server/x402",
    ],
    description:
      "Where the service meets the outside: HTTP (route wrappers, body reading, client addresses, rate limits, the front server), every route's request and response schemas, the model providers and server-sent events, the chains (RPC, the facilitator, one adapter per chain family) and x402's wire (headers, requirements, the paid-route registry).",
  },
  {
    name: "money",
    folders: ["server/ledger", "server/pipeline", "server/payments", "server/prepaid", "server/grants"],
    description:
      "The credit ledger and the payment-row statements with the payment state table they follow; the shared call pipeline (admit, hold, serve, capture or release); the x402 payment state machine (claim, settle, resume, pending settlements); prepaid credit (signed requests, top-ups) and grants.",
  },
  {
    name: "services",
    folders: [
      "server/chat",
      "server/responses",
      "server/embeddings",
      "server/hosted-verify",
      "server/discovery",
      "server/site",
      "server/operator-auth",
      "server/dashboard",
      "server/health",
      "server/reconcile",
      "server/trpc",
      "server/openapi",
      "server/mcp",
      "server/agent",
    ],
    description:
      "What a route calls: the inference services (paid chat, the Responses and embeddings APIs), the hosted verifier, discovery and the site's facts, operator sign-in, the dashboard, health and metrics, reconcile, tRPC, the OpenAPI document, the MCP server (its tools are those services, paid with x402's MCP transport), and the agent-side helpers the CLI uses.",
  },
  {
    name: "runtime",
    folders: ["server/context", "server/runtime"],
    typeImports: true,
    description:
      "The runtime's type (server/context: what every request and job is given, its clock and its outbox of call records) and the composition root (server/runtime): builds the runtime (config, database, chains, keys, upstream) that entry points hand down, checks a deployment before it serves, and runs the background jobs (the call-record outbox, pending settlements, the log sequencer, relays, expired holds, the purge of expired rows).",
  },
  {
    name: "app",
    folders: ["app"],
    description: "Routes and pages: parse, call one service, map the result to a Response.",
  },
  {
    name: "tools",
    folders: ["devtools", "bin"],
    description:
      "Entry points and what only dev, tests and benchmarks use: the production front server and the CLI (bin), local chains, soak, bench, chaos and the docs generators (devtools). server/ and app/ never import devtools/.",
  },
];

/**
 * The folder pairs that import each other, each with the reason. The import graph may have these and no other
 * (eslint.config.test.ts measures it); docs/architecture.md lists them under the map.
 */
export const MUTUAL_FOLDERS = [
  {
    folders: ["server/context", "server/health"],
    why: "Types only, both ways, erased at compile time: the runtime's type carries the health cache and the shutdown flag (server/health), and the metrics endpoint (render-metrics.ts) reads the whole runtime.",
  },
  {
    folders: ["server/context", "server/x402"],
    why: "Types only, both ways, erased at compile time: the runtime's type carries the payment gateway (server/x402), and a network's deposit address is picked from the runtime (deposit-address.ts).",
  },
];

/** The folder a repository-relative path belongs to: `server/<folder>`, else its top-level folder. */
export function folderOf(file) {
  const parts = file.split("/");
  if (parts[0] !== "server") return parts[0];
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : "server";
}

const LAYER_OF_FOLDER = new Map();
LAYERS.forEach((layer, index) => {
  for (const folder of layer.folders) {
    if (LAYER_OF_FOLDER.has(folder)) throw new Error(`eslint.config.mjs: ${folder} is in two layers of LAYERS`);
    LAYER_OF_FOLDER.set(folder, index);
  }
});

/** The layer a repository-relative path belongs to (its index in LAYERS), or -1 when its folder is in none. */
export function layerOf(file) {
  return LAYER_OF_FOLDER.get(folderOf(file)) ?? -1;
}

/**
 * clock/time-read: production code reads time through a Clock (server/clock/index.ts): `Date.now`,
 * `performance.now` and `new Date()` with no argument are refused outside the clock's definitions and the route edge
 * (CLOCK_DEFINITIONS). `new Date(x)` converts a time it was given, and is fine.
 */
const timeReadRule = {
  meta: {
    type: "problem",
    docs: { description: "Time is read through the runtime's Clock (ctx.clock, or a clock passed in)." },
    schema: [],
    messages: {
      read: "{{what}} reads the time: use the runtime's clock (ctx.clock.now() or .monotonic(), or a clock or `now` passed in).",
    },
  },
  create(context) {
    const member = (node, object, property) =>
      node.type === "MemberExpression" &&
      node.object.type === "Identifier" &&
      node.object.name === object &&
      !node.computed &&
      node.property.name === property;
    return {
      MemberExpression: (node) => {
        for (const object of ["Date", "performance"])
          if (member(node, object, "now")) context.report({ node, messageId: "read", data: { what: `${object}.now` } });
      },
      NewExpression: (node) => {
        if (node.callee.type === "Identifier" && node.callee.name === "Date" && node.arguments.length === 0)
          context.report({ node, messageId: "read", data: { what: "new Date()" } });
      },
    };
  },
};

/** Where the time may be read: the server's clock, the browser's, and the route edge (before a runtime exists). */
const CLOCK_DEFINITIONS = ["server/clock/index.ts", "app/_client/browser-clock.ts", "server/runtime/route-edge.ts"];

/** The repository-relative path an import specifier names (relative or `@/`), or null for a package. */
function resolveInRepo(fromFile, specifier) {
  if (specifier.startsWith("@/")) return specifier.slice(2);
  if (specifier.startsWith(".")) return path.relative(ROOT, path.resolve(path.dirname(fromFile), specifier));
  return null;
}

/** layers/downward: an import whose target sits in a later layer than the importing file; a file in no layer. */
const downwardRule = {
  meta: {
    type: "problem",
    docs: {
      description: "Imports point down the layer map in eslint.config.mjs (LAYERS); every folder is in a layer.",
    },
    schema: [],
    messages: {
      upward:
        "{{from}} (layer {{fromLayer}}) must not import {{to}} (layer {{toLayer}}): imports point down the layer map (LAYERS in eslint.config.mjs).",
      devtools:
        "{{from}} must not import {{to}}: server/ and app/ never import devtools/; the entry point passes in what they need.",
      unmapped: "{{folder}} is in no layer: add it to one layer of LAYERS in eslint.config.mjs.",
    },
  },
  create(context) {
    const file = path.relative(ROOT, context.filename);
    // The probe folders eslint.config.test.ts writes (server/__cycle_probe__/) stand outside the map, as tests do.
    if (/(^|\/)__\w+__\//.test(file)) return {};
    const own = layerOf(file);
    const serverOrApp = /^(server|app)\//.test(file);
    const check = (source, typeOnly) => {
      if (typeof source?.value !== "string") return;
      const target = resolveInRepo(context.filename, source.value);
      if (target === null) return;
      if (serverOrApp && folderOf(target) === "devtools") {
        context.report({ node: source, messageId: "devtools", data: { from: file, to: target } });
        return;
      }
      const layer = layerOf(target);
      if (own === -1 || layer === -1 || layer <= own || (typeOnly && LAYERS[layer].typeImports)) return;
      context.report({
        node: source,
        messageId: "upward",
        data: { from: file, fromLayer: LAYERS[own].name, to: target, toLayer: LAYERS[layer].name },
      });
    };
    const typeOnly = (node) =>
      node.importKind === "type" ||
      node.exportKind === "type" ||
      (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === "type" || s.exportKind === "type"));
    return {
      Program: (node) => {
        if (own === -1 && /^(server|app|bin|devtools)\//.test(file))
          context.report({ node, messageId: "unmapped", data: { folder: folderOf(file) } });
      },
      ImportDeclaration: (node) => check(node.source, typeOnly(node)),
      ExportNamedDeclaration: (node) => node.source && check(node.source, typeOnly(node)),
      ExportAllDeclaration: (node) => check(node.source, typeOnly(node)),
      ImportExpression: (node) => check(node.source, false),
    };
  },
};

/** Node's built-in modules, bare (`fs`, `fs/promises`) and prefixed (`node:*`). */
const nodeBuiltins = (where) => ({
  paths: builtinModules
    .filter((name) => !name.startsWith("_"))
    .map((name) => ({ name, message: `${where}: no Node built-ins.` })),
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
      // Server modules hold secrets, the database and Node APIs; only the browser-safe modules (the pure verifier and
      // the error-body reader) and types may be imported.
      regex: "^(@/|(\\.\\./)+)server/(?!verify(/|$)|errors/error-body$)",
      allowTypeImports: true,
      message: `${CLIENT}: import only @/server/verify and @/server/errors/error-body from server/ (or \`import type\`).`,
    },
  ],
};

/** Files under app/ that open with the "use client" directive: the Next.js client components. */
function clientComponents(dir = path.join(ROOT, "app")) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...clientComponents(full));
    else if (
      /\.[jt]sx?$/.test(entry.name) &&
      /^\s*(\/\/[^\n]*\n\s*)*["']use client["']/.test(readFileSync(full, "utf8"))
    ) {
      found.push(path.relative(ROOT, full));
    }
  }
  return found;
}

/**
 * The payment states: the PAYMENT_STATES array server/ledger/payment-states.ts exports, read with the TypeScript
 * parser (a config file cannot import that module). The one list of them; nothing here repeats it.
 */
function paymentStates() {
  const file = path.join(ROOT, "server/ledger/payment-states.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  for (const statement of source.statements.filter(ts.isVariableStatement)) {
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || declaration.name.text !== "PAYMENT_STATES") continue;
      let list = declaration.initializer;
      while (list && (ts.isAsExpression(list) || ts.isSatisfiesExpression(list))) list = list.expression;
      if (list && ts.isArrayLiteralExpression(list) && list.elements.every(ts.isStringLiteral))
        return list.elements.map((e) => e.text);
    }
  }
  throw new Error("server/ledger/payment-states.ts has no PAYMENT_STATES array of string literals");
}

const PAYMENTS =
  "payment rows are written only by server/payments/payment-store.ts and, inside ledger statements, payment-row-statements.ts (their moves follow payment-states.ts)";
/** Statements and Prisma calls that write the payments table, and a payment state spelled out as a literal. */
const paymentWrites = [
  {
    selector: "TemplateElement[value.raw=/\\b(UPDATE|INSERT\\s+INTO|DELETE\\s+FROM)\\s+payments\\b/i]",
    message: `${PAYMENTS}.`,
  },
  {
    selector:
      "CallExpression[callee.property.name=/^(create|createMany|update|updateMany|upsert|delete|deleteMany)$/][callee.object.property.name='payment']",
    message: `${PAYMENTS}.`,
  },
  {
    selector: `Property[key.name='status'] > Literal[value=/^(${paymentStates().join("|")})$/]`,
    message: "name a payment state through server/ledger/payment-states.ts (STATE, LANDED_STATES), never as a literal.",
  },
];

/**
 * Chain-family behaviour sits behind one adapter per family (server/chain: chain-family.ts, svm-family.ts,
 * evm-family.ts, picked by family-adapter.ts) and the families' pure facts (server/verify/chain-family-facts.ts).
 * Nowhere else may code branch on a family: no `===`/`!==` (or `==`/`!=`) with a `.family` operand or the literal
 * "svm" or "evm", and no `switch` on a `.family` or with such a case. The allowlist: server/chain/, the facts, the
 * registry's own row validation (network-registry.ts) and the verifier's payment check (check-payment-by-family.ts).
 * Tests are not held to it (they state what each family's rows are). no-family-comparisons.test.ts proves it fires.
 */
export const FAMILY_BRANCH_ALLOWED = [
  "server/chain/**",
  "server/verify/chain-family-facts.ts",
  "server/verify/network-registry.ts",
  "server/verify/check-payment-by-family.ts",
];
const FAMILY =
  "branch on a chain family only in its adapter (server/chain/*-family.ts) or its facts (server/verify/chain-family-facts.ts): read a fact or call a method there";
/** `x.family`, `x?.family` or the literal "svm"/"evm" as `side` (one selector per node, so a comparison reports once). */
const familyOperand = (side) =>
  `[${side}.property.name='family'], [${side}.expression.property.name='family'], [${side}.value=/^(svm|evm)$/]`;
const familyBranches = [
  {
    selector: `BinaryExpression[operator=/^[!=]==?$/]:matches(${familyOperand("left")}, ${familyOperand("right")})`,
    message: `${FAMILY}.`,
  },
  {
    selector:
      "SwitchStatement:matches([discriminant.property.name='family'], [discriminant.expression.property.name='family'])",
    message: `${FAMILY}.`,
  },
  { selector: "SwitchCase[test.value=/^(svm|evm)$/]", message: `${FAMILY}.` },
];
const TESTS = ["**/*.test.ts", "**/*.test.tsx", "server/test/**", "server/verify/fixtures/**"];

/** The type-aware rules every TypeScript file is held to (they read the TypeScript program tsconfig.json builds). */
export const TYPE_AWARE_RULES = {
  "@typescript-eslint/no-floating-promises": "error",
  "@typescript-eslint/no-misused-promises": "error",
  "@typescript-eslint/switch-exhaustiveness-check": "error",
  "@typescript-eslint/await-thenable": "error",
  "@typescript-eslint/no-array-delete": "error",
  "@typescript-eslint/no-for-in-array": "error",
  "@typescript-eslint/no-implied-eval": "error",
  "@typescript-eslint/no-unsafe-unary-minus": "error",
  "@typescript-eslint/restrict-plus-operands": "error",
};
/** The type-aware rules for production code only. */
export const TYPE_AWARE_PRODUCTION_RULES = { "@typescript-eslint/only-throw-error": "error" };

/**
 * An override for tests that lint probe text with rules that read no types: no TypeScript program (a minute to build,
 * and a probe at an invented path is in no project) and the type-aware rules off.
 */
export const WITHOUT_TYPES = {
  files: ["**/*.{ts,tsx,mts}"],
  languageOptions: { parserOptions: { projectService: false } },
  rules: Object.fromEntries(
    Object.keys({ ...TYPE_AWARE_RULES, ...TYPE_AWARE_PRODUCTION_RULES }).map((rule) => [rule, "off"]),
  ),
};

export default defineConfig(
  // server/__cycle_probe__/ holds the files eslint.config.test.ts writes to prove the cycle rule fires; it lints them
  // itself, and a lint run at the same moment does not see them.
  {
    ignores: [
      "node_modules/",
      ".next*/",
      ".data/",
      "server/generated/",
      "test-results/",
      "playwright-report/",
      "bench/tmp/",
      "next-env.d.ts",
      "server/__cycle_probe__/",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: "module" },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // TypeScript checks names (and globals differ between Node, the browser and the config files).
      "no-undef": "off",
      // Unused variables are errors, except the `_`-prefixed ones kept on purpose (and rest siblings that drop a key).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Type-aware rules, for the TypeScript files only (one program from tsconfig.json; the .mjs files need none):
    // every promise is awaited, returned, or handed to `void` on purpose; no promise where a callback's result is
    // ignored (an event handler, a timer); a switch over a union names every member (a `default` does not hide a new
    // one); and the cheap correctness checks of recommendedTypeChecked the codebase passes. Tests get them too: an
    // un-awaited expect or restore passes without checking anything.
    files: ["**/*.{ts,tsx,mts}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
    rules: TYPE_AWARE_RULES,
  },
  {
    // Production code throws errors; tests throw other values on purpose, to prove they are handled.
    files: ["server/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "bin/**/*.ts", "devtools/**/*.ts"],
    ignores: TESTS,
    rules: TYPE_AWARE_PRODUCTION_RULES,
  },
  {
    // The family rule first: the blocks below that restrict syntax too repeat it (a later block's rule replaces it).
    files: ["server/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "bin/**/*.{ts,tsx}", "devtools/**/*.{ts,tsx}"],
    ignores: [...TESTS, "server/generated/**", ...FAMILY_BRANCH_ALLOWED],
    rules: { "no-restricted-syntax": ["error", ...familyBranches] },
  },
  {
    files: ["server/**/*.ts", "bin/**/*.ts"],
    ignores: [
      "server/payments/**",
      "server/ledger/payment-row-statements.ts",
      "server/ledger/payment-states.ts",
      "server/ledger/payment-transition.ts",
      "server/test/**",
      "**/*.test.ts",
      "server/generated/**",
    ],
    rules: { "no-restricted-syntax": ["error", ...paymentWrites, ...familyBranches] },
  },
  {
    // The family's own files keep the payment-write rule without the family one.
    files: FAMILY_BRANCH_ALLOWED,
    ignores: TESTS,
    rules: { "no-restricted-syntax": ["error", ...paymentWrites] },
  },
  {
    // Pages and route handlers reach payments only through server/: no write of their own (their `status` fields are
    // other things').
    files: ["app/**/*.{ts,tsx}"],
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-syntax": ["error", ...paymentWrites.slice(0, 2), ...familyBranches] },
  },
  {
    // Tests stand outside the map (an integration test starts devtools' chains); nothing imports them, so they cannot
    // close a cycle either.
    files: ["server/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "devtools/**/*.{ts,tsx}", "bin/**/*.{ts,tsx}"],
    ignores: ["**/*.test.ts", "server/test/**", "server/verify/fixtures/**"],
    plugins: { layers: { rules: { downward: downwardRule } }, "import-x": importX },
    settings: {
      // The TypeScript sources are parsed for their imports (the default reads only .js), resolved as tsconfig does.
      "import-x/extensions": [".ts", ".tsx", ".mts", ".js", ".mjs"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx", ".mts"] },
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: path.join(ROOT, "tsconfig.json") })],
    },
    rules: {
      "layers/downward": "error",
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
  {
    // Production code reads time through its clock (timeReadRule); entry points (bin/), dev tools and tests may not have one.
    files: ["server/**/*.{ts,tsx}", "app/**/*.{ts,tsx}"],
    ignores: [...TESTS, "server/generated/**", ...CLOCK_DEFINITIONS],
    plugins: { clock: { rules: { "time-read": timeReadRule } } },
    rules: { "clock/time-read": "error" },
  },
  {
    // What a production install (`npm install --omit=dev`) runs: server/, app/ and `npm start`'s entry points import
    // only `dependencies` (a type-only import is erased, so it may name a dev dependency).
    files: ["server/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "bin/start/**/*.ts"],
    ignores: TESTS,
    plugins: { "import-x": importX },
    rules: {
      "import-x/no-extraneous-dependencies": [
        "error",
        { devDependencies: false, includeTypes: false, packageDir: ROOT },
      ],
    },
  },
  {
    files: ["server/verify/**/*.{ts,tsx}", "server/errors/error-body.ts"],
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
