// The networks the service takes payment on, one row each: every fact about a network (its ids and names, its USDC,
// its explorer, its timing, its native currency, how people see it) lives in its row, and everything else is derived
// from the rows. Pure data and pure functions, browser-safe: the verifier and the explorer pages read the same rows.
import { isBase58PublicKey } from "./ed25519";

/** A network's own id in this service (`base-sepolia`): lower-case words joined by dashes. */
export type NetworkId = string;

export type NetworkFamily = "svm" | "evm";

/** What a row holds whatever its family. */
interface NetworkRowFacts {
  id: NetworkId;
  /** CAIP-2 id, as x402 v2 and the receipts carry it. */
  caip2: string;
  /** The name x402 v1 clients and @x402/svm's and @x402/evm's v1 schemes give it. */
  x402V1Name: string;
  /**
   * The names a request body or a setting may use for it besides its CAIP-2 id (never its own id unless listed). The
   * first is the one the service names it by (the models list's `networks`, messages). Those in CAIP-2 form
   * (`solana:devnet`) are also accepted as a receipt's `payment.network`.
   */
  aliases: readonly [string, ...string[]];
  /**
   * A name for the whole family (`solana`): it resolves to the default network when that is of this row's family, else
   * to this row. At most one row of a family carries it.
   */
  familyName?: string;
  /** Mainnets are refused unless enabled (the kill switch), and only allowlisted agents may pay on them. */
  isMainnet: boolean;
  /** The USDC asset: an SPL mint (svm) or an ERC-20 contract (evm). "USDC" means this asset, not any token so named. */
  usdcAsset: string;
  /** Where a person looks at a transaction or an address: `{tx}` and `{address}` stand for the id. */
  explorer: { name: string; txUrl: string; addressUrl: string };
  /** How often the chain makes a block (EVM) or a slot (Solana), ms. */
  blockTimeMs: number;
  /** What the fee payer pays gas in, and the balances (in that currency, as decimals) under which it warns and alerts. */
  nativeCurrency: {
    name: string;
    symbol: string;
    decimals: number;
    feePayerWarnBelow: string;
    feePayerAlertBelow: string;
  };
  /** Its name for people ("Base Sepolia"). */
  label: string;
  /** The dashboard's chart colour, `#rrggbb`. */
  chartColor: string;
  /** The public RPC the docs suggest and the verifier uses when given none. */
  publicRpcUrl: string;
}

export interface SvmNetworkRow extends NetworkRowFacts {
  family: "svm";
  chainId?: never;
  eip712?: never;
}

export interface EvmNetworkRow extends NetworkRowFacts {
  family: "evm";
  /** The EIP-155 chain id: the CAIP-2 id's reference. */
  chainId: number;
  /** The USDC contract's EIP-712 domain, which the agent signs its EIP-3009 authorization under. */
  eip712: { name: string; version: string };
}

export type NetworkRow = SvmNetworkRow | EvmNetworkRow;

/**
 * The networks this release takes payment on. Chart colours are colour-blind-safe hues (Okabe–Ito's, and violet), one
 * per network, each dark enough to read against white. Solana's fee payer warns under 0.5 SOL (the recommended funding)
 * and alerts under 0.1; each EVM network's levels are set from what one EIP-3009 settlement costs there (~80k gas, well
 * under 0.0001 ETH at Base's fees).
 */
export const SHIPPED_NETWORK_ROWS: readonly NetworkRow[] = [
  {
    id: "solana-devnet",
    caip2: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    x402V1Name: "solana-devnet",
    aliases: ["devnet", "solana:devnet"],
    familyName: "solana",
    family: "svm",
    isMainnet: false,
    usdcAsset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
    explorer: {
      name: "Solana Explorer (devnet)",
      txUrl: "https://explorer.solana.com/tx/{tx}?cluster=devnet",
      addressUrl: "https://explorer.solana.com/address/{address}?cluster=devnet",
    },
    blockTimeMs: 400,
    nativeCurrency: { name: "SOL", symbol: "SOL", decimals: 9, feePayerWarnBelow: "0.5", feePayerAlertBelow: "0.1" },
    label: "Solana devnet",
    chartColor: "#6d28d9",
    publicRpcUrl: "https://api.devnet.solana.com",
  },
  {
    id: "solana-mainnet",
    caip2: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    x402V1Name: "solana",
    aliases: ["mainnet", "solana:mainnet", "solana:mainnet-beta"],
    family: "svm",
    isMainnet: true,
    usdcAsset: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    explorer: {
      name: "Solana Explorer (mainnet)",
      txUrl: "https://explorer.solana.com/tx/{tx}",
      addressUrl: "https://explorer.solana.com/address/{address}",
    },
    blockTimeMs: 400,
    nativeCurrency: { name: "SOL", symbol: "SOL", decimals: 9, feePayerWarnBelow: "0.5", feePayerAlertBelow: "0.1" },
    label: "Solana mainnet",
    chartColor: "#0f766e",
    publicRpcUrl: "https://api.mainnet-beta.solana.com",
  },
  {
    id: "base",
    caip2: "eip155:8453",
    x402V1Name: "base",
    aliases: ["base"],
    family: "evm",
    chainId: 8453,
    isMainnet: true,
    usdcAsset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    eip712: { name: "USD Coin", version: "2" },
    explorer: {
      name: "Basescan",
      txUrl: "https://basescan.org/tx/{tx}",
      addressUrl: "https://basescan.org/address/{address}",
    },
    blockTimeMs: 2_000,
    nativeCurrency: {
      name: "Ether",
      symbol: "ETH",
      decimals: 18,
      feePayerWarnBelow: "0.005",
      feePayerAlertBelow: "0.001",
    },
    label: "Base",
    chartColor: "#c2410c",
    publicRpcUrl: "https://mainnet.base.org",
  },
  {
    id: "base-sepolia",
    caip2: "eip155:84532",
    x402V1Name: "base-sepolia",
    aliases: ["base-sepolia"],
    family: "evm",
    chainId: 84532,
    isMainnet: false,
    usdcAsset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    eip712: { name: "USDC", version: "2" },
    explorer: {
      name: "Basescan (Sepolia)",
      txUrl: "https://sepolia.basescan.org/tx/{tx}",
      addressUrl: "https://sepolia.basescan.org/address/{address}",
    },
    blockTimeMs: 2_000,
    nativeCurrency: {
      name: "Ether",
      symbol: "ETH",
      decimals: 18,
      feePayerWarnBelow: "0.005",
      feePayerAlertBelow: "0.001",
    },
    label: "Base Sepolia",
    chartColor: "#2563eb",
    publicRpcUrl: "https://sepolia.base.org",
  },
  // Polygon and Avalanche: Circle's native USDC (FiatToken v2.2), not the bridged USDC.e. Addresses and EIP-712 domains
  // as @x402/evm 2.27's DEFAULT_ASSETS gives Polygon's and Avalanche's, and x402 1.2's v1 EVM config gives Amoy's and
  // Fuji's (name only; every FiatToken v2 signs under version "2"), each equal to Circle's published USDC contracts.
  // A settlement is one EIP-3009 transferWithAuthorization, ~80k gas.
  {
    id: "polygon",
    caip2: "eip155:137",
    x402V1Name: "polygon",
    aliases: ["polygon"],
    family: "evm",
    chainId: 137,
    isMainnet: true,
    usdcAsset: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
    eip712: { name: "USD Coin", version: "2" },
    explorer: {
      name: "Polygonscan",
      txUrl: "https://polygonscan.com/tx/{tx}",
      addressUrl: "https://polygonscan.com/address/{address}",
    },
    blockTimeMs: 2_000,
    // ~80k gas at Polygon's usual 30–100 gwei is 0.0024–0.008 POL, and gas spikes past 1,000 gwei: 1 POL still pays
    // ~12 settlements at such a spike, 5 POL hundreds at usual prices.
    nativeCurrency: { name: "POL", symbol: "POL", decimals: 18, feePayerWarnBelow: "5", feePayerAlertBelow: "1" },
    label: "Polygon",
    chartColor: "#a3347b",
    publicRpcUrl: "https://polygon-rpc.com",
  },
  {
    id: "polygon-amoy",
    caip2: "eip155:80002",
    x402V1Name: "polygon-amoy",
    aliases: ["polygon-amoy"],
    family: "evm",
    chainId: 80002,
    isMainnet: false,
    usdcAsset: "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582",
    eip712: { name: "USDC", version: "2" },
    explorer: {
      name: "Polygonscan (Amoy)",
      txUrl: "https://amoy.polygonscan.com/tx/{tx}",
      addressUrl: "https://amoy.polygonscan.com/address/{address}",
    },
    blockTimeMs: 2_000,
    // Amoy's gas sits near its 25–30 gwei floor (~0.0024 POL a settlement) and its faucets hand out fractions of a POL:
    // 0.1 POL is ~40 settlements.
    nativeCurrency: { name: "POL", symbol: "POL", decimals: 18, feePayerWarnBelow: "0.5", feePayerAlertBelow: "0.1" },
    label: "Polygon Amoy",
    chartColor: "#0284c7",
    publicRpcUrl: "https://rpc-amoy.polygon.technology",
  },
  {
    id: "avalanche",
    caip2: "eip155:43114",
    x402V1Name: "avalanche",
    aliases: ["avalanche"],
    family: "evm",
    chainId: 43114,
    isMainnet: true,
    usdcAsset: "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E",
    eip712: { name: "USD Coin", version: "2" },
    explorer: {
      name: "Snowtrace",
      txUrl: "https://snowtrace.io/tx/{tx}",
      addressUrl: "https://snowtrace.io/address/{address}",
    },
    blockTimeMs: 2_000,
    // ~80k gas is at most 0.002 AVAX at 25 gwei (the C-Chain's old floor; its base fee is usually far below now): 0.1
    // AVAX is 50 settlements at that price, 0.5 AVAX 250.
    nativeCurrency: {
      name: "Avalanche",
      symbol: "AVAX",
      decimals: 18,
      feePayerWarnBelow: "0.5",
      feePayerAlertBelow: "0.1",
    },
    label: "Avalanche",
    chartColor: "#262626",
    publicRpcUrl: "https://api.avax.network/ext/bc/C/rpc",
  },
  {
    id: "avalanche-fuji",
    caip2: "eip155:43113",
    x402V1Name: "avalanche-fuji",
    aliases: ["avalanche-fuji"],
    family: "evm",
    chainId: 43113,
    isMainnet: false,
    usdcAsset: "0x5425890298aed601595a70AB815c96711a31Bc65",
    eip712: { name: "USD Coin", version: "2" },
    explorer: {
      name: "Snowtrace (Fuji)",
      txUrl: "https://testnet.snowtrace.io/tx/{tx}",
      addressUrl: "https://testnet.snowtrace.io/address/{address}",
    },
    blockTimeMs: 2_000,
    // Fuji's fees are the C-Chain's; its faucet gives a few tenths of an AVAX a day, so the levels are lower.
    nativeCurrency: {
      name: "Avalanche",
      symbol: "AVAX",
      decimals: 18,
      feePayerWarnBelow: "0.2",
      feePayerAlertBelow: "0.05",
    },
    label: "Avalanche Fuji",
    chartColor: "#a16207",
    publicRpcUrl: "https://api.avax-test.network/ext/bc/C/rpc",
  },
];

/** The rows, checked and indexed: every lookup the service and the verifier make of a network. */
export interface NetworkRegistry {
  /** Every row, in the order given. */
  readonly rows: readonly NetworkRow[];
  readonly ids: readonly NetworkId[];
  /** The rows that are mainnets. */
  readonly mainnets: readonly NetworkRow[];
  /** The name each network is shown by in lists and messages (its first alias), in row order. */
  readonly requestNames: readonly string[];
  /** The rows of one family. */
  ofFamily(family: NetworkFamily): readonly NetworkRow[];
  /** The row with this id, or null. */
  byId(id: string): NetworkRow | null;
  /** The row with this id; throws a RangeError for an id the registry does not hold (an id is checked where it enters). */
  get(id: NetworkId): NetworkRow;
  /** The row whose CAIP-2 id is exactly `caip2`, or null. */
  byCaip2(caip2: string): NetworkRow | null;
  /** The row x402 v1 names `name`, or null. */
  byV1Name(name: unknown): NetworkRow | null;
  /**
   * The network a request body or a setting names: an alias, a CAIP-2 id, or a family name (the default network when
   * it is of that family, else the family's own row). Surrounding spaces are ignored; null for anything else.
   */
  resolve(name: string, defaultNetwork?: NetworkId): NetworkId | null;
  /**
   * The network a receipt's `payment.network` names: its CAIP-2 id, an alias in CAIP-2 form, or (Solana) the whole
   * genesis hash the CAIP-2 id is the first 32 characters of. Null for anything else.
   */
  ofReceiptNetwork(network: string): NetworkRow | null;
}

/** A row the registry refuses: the message names the row and what is wrong with it. */
export class NetworkRegistryError extends Error {
  override name = "NetworkRegistryError";
}

const ID = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** CAIP-2: a namespace of 3–8 characters and a reference of 1–32. */
const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HTTPS_URL = /^https:\/\/[^\s/?#]+[^\s]*$/;
const HEX_COLOUR = /^#[0-9a-f]{6}$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** `text`, a decimal in a currency of `decimals` decimals, in its atomic units; null when malformed or finer than one unit. */
export function nativeAmountUnits(text: string, decimals: number): bigint | null {
  if (!DECIMAL.test(text)) return null;
  const [whole = "0", frac = ""] = text.split(".");
  if (frac.replace(/0+$/, "").length > decimals) return null;
  return BigInt(whole + frac.padEnd(decimals, "0").slice(0, decimals));
}

/** What is wrong with one row on its own, or null. */
function rowProblem(row: NetworkRow): string | null {
  if (!ID.test(row.id)) return "its id must be lower-case words joined by dashes";
  if (!CAIP2.test(row.caip2)) return `its CAIP-2 id ${JSON.stringify(row.caip2)} is malformed`;
  if (row.x402V1Name.trim() === "") return "its x402 v1 name is empty";
  if (row.aliases.length === 0 || row.aliases.some((a) => a.trim() !== a || a === ""))
    return "its aliases must be non-empty names without surrounding spaces";
  if (row.label.trim() === "") return "its label is empty";
  if (!HEX_COLOUR.test(row.chartColor)) return "its chart colour must be #rrggbb (lower case)";
  if (!HTTPS_URL.test(row.publicRpcUrl)) return "its public RPC must be an https URL";
  if (!row.explorer.name || !HTTPS_URL.test(row.explorer.txUrl) || !row.explorer.txUrl.includes("{tx}"))
    return "its explorer needs a name and an https txUrl with {tx}";
  if (!HTTPS_URL.test(row.explorer.addressUrl) || !row.explorer.addressUrl.includes("{address}"))
    return "its explorer needs an https addressUrl with {address}";
  if (!Number.isSafeInteger(row.blockTimeMs) || row.blockTimeMs <= 0)
    return "its block time must be a positive whole number of ms";
  const native = row.nativeCurrency;
  if (
    !native.name ||
    !native.symbol ||
    !Number.isSafeInteger(native.decimals) ||
    native.decimals < 0 ||
    native.decimals > 36
  )
    return "its native currency needs a name, a symbol and 0–36 decimals";
  const warn = nativeAmountUnits(native.feePayerWarnBelow, native.decimals);
  const alert = nativeAmountUnits(native.feePayerAlertBelow, native.decimals);
  if (warn === null || alert === null || alert <= 0n || warn < alert)
    return "its fee payer levels must be decimals with warn at or above alert, alert above 0";
  if (row.family === "svm") {
    if (!row.caip2.startsWith("solana:")) return "an svm network's CAIP-2 id is solana:<genesis hash prefix>";
    if (!isBase58PublicKey(row.usdcAsset)) return "its USDC mint must be a base58 public key";
    if ((row as { chainId?: unknown }).chainId !== undefined || (row as { eip712?: unknown }).eip712 !== undefined)
      return "an svm network has no chain id or EIP-712 domain";
    return null;
  }
  if (row.family === "evm") {
    if (!Number.isSafeInteger(row.chainId) || row.chainId <= 0 || row.caip2 !== `eip155:${row.chainId}`)
      return "an evm network's CAIP-2 id is eip155:<its chain id>";
    if (!EVM_ADDRESS.test(row.usdcAsset)) return "its USDC contract must be a 0x address";
    if (!row.eip712?.name || !row.eip712.version)
      return "an evm network needs its USDC's EIP-712 domain (name and version)";
    return null;
  }
  return `its family ${JSON.stringify((row as { family?: unknown }).family)} is neither svm nor evm`;
}

/** Builds the registry over `rows`; throws a NetworkRegistryError naming the first row that is malformed or clashes with another. */
export function createNetworkRegistry(rows: readonly NetworkRow[]): NetworkRegistry {
  if (!Array.isArray(rows) || rows.length === 0)
    throw new NetworkRegistryError("a network registry needs at least one row");
  const byId = new Map<string, NetworkRow>();
  const byCaip2 = new Map<string, NetworkRow>();
  const byV1 = new Map<string, NetworkRow>();
  // Every name `resolve` takes (aliases, CAIP-2 ids, family names) names one network.
  const byName = new Map<string, NetworkRow>();
  const familyRows = new Map<string, NetworkRow>();
  const claim = (index: Map<string, NetworkRow>, key: string, row: NetworkRow, what: string) => {
    const other = index.get(key);
    if (other)
      throw new NetworkRegistryError(`network ${row.id}: ${what} ${JSON.stringify(key)} is also network ${other.id}'s`);
    index.set(key, row);
  };
  for (const [i, row] of rows.entries()) {
    const given = row as unknown as { id?: unknown } | null;
    const name = typeof given?.id === "string" && given.id !== "" ? given.id : `#${i + 1}`;
    const problem = typeof given === "object" && given !== null ? rowProblem(row) : "it is not an object";
    if (problem) throw new NetworkRegistryError(`network ${name}: ${problem}`);
    claim(byId, row.id, row, "id");
    claim(byCaip2, row.caip2, row, "CAIP-2 id");
    claim(byV1, row.x402V1Name, row, "x402 v1 name");
    claim(byName, row.caip2, row, "name");
    for (const alias of row.aliases) claim(byName, alias, row, "alias");
    if (row.familyName !== undefined) {
      claim(byName, row.familyName, row, "family name");
      const other = familyRows.get(row.family);
      if (other)
        throw new NetworkRegistryError(
          `network ${row.id}: family ${row.family} already has its family name on network ${other.id}`,
        );
      familyRows.set(row.family, row);
    }
  }
  const all = Object.freeze([...rows]);
  const ofReceiptNetwork = (network: string): NetworkRow | null => {
    const exact = byCaip2.get(network);
    if (exact) return exact;
    const named = byName.get(network);
    if (named && named.aliases.includes(network) && CAIP2.test(network)) return named;
    // Solana's CAIP-2 reference is the genesis hash's first 32 characters; receipts may carry the whole hash.
    return all.find((r) => r.family === "svm" && network.startsWith(r.caip2)) ?? null;
  };
  return {
    rows: all,
    ids: all.map((r) => r.id),
    mainnets: all.filter((r) => r.isMainnet),
    requestNames: all.map((r) => r.aliases[0]),
    ofFamily: (family) => all.filter((r) => r.family === family),
    byId: (id) => byId.get(id) ?? null,
    get(id) {
      const row = byId.get(id);
      if (!row)
        throw new RangeError(`no network ${JSON.stringify(id)} in this registry (${[...byId.keys()].join(", ")})`);
      return row;
    },
    byCaip2: (caip2) => byCaip2.get(caip2) ?? null,
    byV1Name: (name) => (typeof name === "string" ? (byV1.get(name) ?? null) : null),
    resolve(name, defaultNetwork) {
      const key = name.trim();
      const row = byName.get(key);
      if (!row) return null;
      if (row.familyName === key)
        return defaultNetwork !== undefined && byId.get(defaultNetwork)?.family === row.family
          ? defaultNetwork
          : row.id;
      return row.id;
    },
    ofReceiptNetwork,
  };
}

/** The registry of this release's networks. */
export const SHIPPED_NETWORKS: NetworkRegistry = createNetworkRegistry(SHIPPED_NETWORK_ROWS);
