// Per-minute windows (the rate limits') are the database's and the wall clock's: a test whose requests must share one
// starts early enough in a window.

/** Waits for a fresh per-minute window when the current one is nearly spent, so a test's requests share one window. */
export async function inOneWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((r) => setTimeout(r, left + 50));
}
