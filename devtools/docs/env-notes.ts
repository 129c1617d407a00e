// What a variable of the env schema means, for the fields that carry no `/** … */` comment of their own (a comment on
// the field wins; env-reference.test.ts fails when a note is left for a field that has one, or that is gone).
import "server-only";

export const ENV_NOTES: Readonly<Record<string, string>> = {
  NODE_ENV: "`production` refuses to start without configured keys and closes the hosted verifier to private networks; `npm start` always runs as `production`.",
  PORT: "HTTP port of `npm run dev` / `npm start`.",
  UPSTREAM_BASE_URL: "The OpenAI-compatible model provider.",
  UPSTREAM_API_KEY: "The provider's key; unset, only the built-in `local/echo-1` is offered.",
  UPSTREAM_PROVIDER_NAME: "The receipt's `upstream` for provider calls.",
  UPSTREAM_TIMEOUT_MS: "Upstream time limit (for a stream: to its start, and between two chunks).",
  LOCAL_MODEL_STREAM_DELAY_MS: "Pause between the built-in model's streamed tokens, so a local stream behaves like one.",
  X402_NETWORK: "Setting default: the network when the body names none.",
  X402_FLAT_PRICE_USDC: "Setting default: the price of every call.",
  SERVICE_MAX_PRICE_USDC: "Setting default: hard ceiling on the price.",
  SERVICE_DEPOSIT_ADDRESS: "Setting default: the devnet deposit address; must equal the facilitator key's address (start-up fails otherwise). Unset: that address.",
  SERVICE_MAINNET_DEPOSIT_ADDRESS: "Setting default: the mainnet deposit address (may differ from the fee payer).",
  SERVICE_ALLOWED_AGENTS: "Setting default: comma-separated payers allowed on mainnet (Solana and Base), base58 keys or 0x addresses; empty is open.",
  SERVICE_GRANT_AMOUNT_USDC: "Setting default: the sponsored first balance a grant credits.",
  SERVICE_GRANT_MAX_PER_IP: "Setting default: grants per hashed client IP.",
  SERVICE_GRANT_BUDGET_DAILY_USDC: "Setting default: the grants' budget per UTC day.",
  IP_HASH_SALT: "Secret salt for hashing client IPs (grants). Dev: generated into the data dir; production: required for grants.",
};
