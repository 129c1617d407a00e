// USDC amounts: receipts carry decimal numbers (`amount_usdc`, `cost_usdc`), the chain and the ledger carry bigint
// atomic units (1 USDC = 1,000,000 units). Conversions go through decimal strings, never float math.

/** USDC has 6 decimals on every supported network. */
export const USDC_DECIMALS = 6;
const UNITS_PER_USDC = 1_000_000n;

/** Parses a non-negative decimal string (`"0.01"`, `"1e-7"`, `"5"`) into units; null if malformed or finer than 1 unit. */
export function parseUsdcToUnits(text: string): bigint | null {
  const m = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m) return null;
  const intPart = m[1] ?? "0";
  const fracPart = m[2] ?? "";
  const exponent = Number(m[3] ?? "0");
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 100) return null;
  // digits × 10^(exponent − fracLen) × 10^6 units
  const digits = BigInt(intPart + fracPart);
  const shift = exponent - fracPart.length + USDC_DECIMALS;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  return digits % divisor === 0n ? digits / divisor : null;
}

/** Converts a receipt's decimal number to units; null for negatives, non-finite values or sub-unit precision. */
export function usdcNumberToUnits(value: unknown): bigint | null {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return null;
  // String(n) is the shortest round-trip decimal, so 0.01 reads as "0.01", not 0.01000000000000000020816…
  return parseUsdcToUnits(String(value));
}

/** Writes units as a decimal string without trailing zeros (`1000n` → `"0.001"`). */
export function formatUnitsAsUsdc(units: bigint): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / UNITS_PER_USDC;
  const frac = (abs % UNITS_PER_USDC).toString().padStart(USDC_DECIMALS, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${frac ? `.${frac}` : ""}`;
}

/** Units as the receipt's JSON number (the nearest double to the exact decimal, so it round-trips). */
export function unitsToUsdcNumber(units: bigint): number {
  return Number(formatUnitsAsUsdc(units));
}
