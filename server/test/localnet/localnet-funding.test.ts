// The local chain funds from its mint authority. A chain restored from its snapshot beside a mint-authority key file
// that is not the mint's authority (the key file replaced or recreated while the snapshot stayed) still funds: before,
// `npm run dev` died at start on such a folder with "funding <fee payer> failed: ... AccountNotFound".
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startLocalnet } from "../../../devtools/localnet";
import { generateKeypair, toSolanaCliJson } from "../../keys/parse-secret-key";
import { tempDataDir } from "../support/env";

const authorityFile = (dataDir: string) => path.join(dataDir, "localnet-devnet-mint-authority.json");

describe("LocalChain.fund() after a restore", () => {
  for (const [what, change] of [
    [
      "replaced by another key",
      (dataDir: string) => writeFileSync(authorityFile(dataDir), toSolanaCliJson(generateKeypair()), { mode: 0o600 }),
    ],
    ["removed", (dataDir: string) => rmSync(authorityFile(dataDir))],
  ] as const) {
    it(`funds SOL and USDC when the mint-authority key file was ${what}, and keeps what the chain held`, async () => {
      const dataDir = tempDataDir("signet-localnet-funding-");
      const before = generateKeypair().publicKeyBase58;
      const first = await startLocalnet({ profile: "devnet", port: 0, dataDir });
      await first.fundAccount(before, { usdcUnits: 7_000_000n });
      const oldAuthority = first.chain.mintAuthority.address;
      await first.close();

      change(dataDir);
      const restored = await startLocalnet({ profile: "devnet", port: 0, dataDir });
      try {
        expect(restored.chain.mintAuthority.address).not.toBe(oldAuthority);
        const feePayer = generateKeypair().publicKeyBase58;
        const funded = await restored.fundAccount(feePayer, { lamports: 10_000_000_000n, usdcUnits: 1_000_000n });
        expect(funded.lamports).toBe("10000000000");
        expect(await restored.usdcBalance(feePayer)).toBe(1_000_000n);
        expect(await restored.usdcBalance(before)).toBe(7_000_000n);
      } finally {
        await restored.close();
      }
    });
  }

  it("funds on a chain reopened many times from its own snapshot", async () => {
    const dataDir = tempDataDir("signet-localnet-funding-");
    const feePayer = generateKeypair().publicKeyBase58;
    for (let start = 0; start < 3; start++) {
      const net = await startLocalnet({ profile: "devnet", port: 0, dataDir });
      try {
        await net.fundAccount(feePayer, { lamports: 1_000_000_000n });
        await net.fundAccount(generateKeypair().publicKeyBase58, { usdcUnits: 1n });
      } finally {
        await net.close();
      }
    }
  });
});
