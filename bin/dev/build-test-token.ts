// `npm run build:test-token`: compiles the local anvil chain's contracts (the EIP-3009 test USDC and the Multicall3
// subset) with solc-js and writes their artifacts beside the harness. The artifacts are committed, so the harness and
// CI never need a compiler; re-run this after editing a .sol file (an integration test fails while one is stale).
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import solc from "solc";

const ANVIL_DIR = path.join(import.meta.dirname, "..", "..", "devtools", "anvil");
/** The committed bytecode must not depend on which solc happens to be installed: package.json pins this one. */
const SOLC_VERSION = "0.8.37";
/** Base, Base Sepolia and anvil's default hardfork all run Cancun code, and the contracts need nothing newer. */
const EVM_VERSION = "cancun";

const TARGETS = [
  { source: "Eip3009Usdc.sol", contractName: "Eip3009Usdc", artifact: "eip3009-usdc.artifact.json" },
  { source: "Multicall3.sol", contractName: "Multicall3", artifact: "multicall3.artifact.json" },
] as const;

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

const semver = (solc.semver() as string).split("+")[0];
if (semver !== SOLC_VERSION)
  throw new Error(`solc-js ${semver} is installed; the artifacts are built with ${SOLC_VERSION}`);

const sources = Object.fromEntries(
  TARGETS.map((t) => [t.source, readFileSync(path.join(ANVIL_DIR, "contracts", t.source), "utf8")]),
);
const input = {
  language: "Solidity",
  // Bare file names as source units, so the metadata hash inside the bytecode is the same on every checkout.
  sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: EVM_VERSION,
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
for (const e of output.errors ?? []) console.error(e.formattedMessage);
if (output.errors?.some((e) => e.severity === "error")) process.exit(1);

for (const t of TARGETS) {
  const compiled = output.contracts?.[t.source]?.[t.contractName];
  if (!compiled) throw new Error(`solc produced no ${t.contractName} in ${t.source}`);
  const artifact = {
    contractName: t.contractName,
    compiler: `solc-js ${SOLC_VERSION}`,
    sourceSha256: createHash("sha256").update(sources[t.source]!).digest("hex"),
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
    deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
  };
  writeFileSync(path.join(ANVIL_DIR, t.artifact), JSON.stringify(artifact, null, 2) + "\n");
  console.log(
    `${t.artifact}: ${(compiled.evm.deployedBytecode.object.length / 2).toLocaleString("en")} bytes of runtime code`,
  );
}
