// The hot wallet's key file: read once, refused when others may read it or when it holds anything
// but one 0x-hex key, and never echoed in an error.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { privateKeyToAccount } from "viem/accounts";
import { HotWalletKeyError, loadHotWallet } from "../../src/chain/hot-wallet.js";

const dir = mkdtempSync(join(tmpdir(), "predex-key-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const key = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

function keyFile(name: string, text: string, mode: number): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return path;
}

describe("the hot wallet key file", () => {
  it("gives the account of the key it holds", () => {
    const account = loadHotWallet(keyFile("good", `${key}\n`, 0o600));
    assert.equal(account.address, privateKeyToAccount(key).address);
  });

  it("is refused when others may read it, or malformed, without showing the key", () => {
    const refusals = [
      () => loadHotWallet(keyFile("open", key, 0o644)),
      () => loadHotWallet(keyFile("short", key.slice(0, 40), 0o600)),
      () => loadHotWallet(keyFile("two", `${key}\n${key}`, 0o600)),
      () => loadHotWallet(join(dir, "missing")),
    ];
    for (const refusal of refusals) {
      assert.throws(refusal, (error: unknown) => {
        assert.ok(error instanceof HotWalletKeyError);
        assert.ok(!error.message.includes(key.slice(2, 20)), "the key is not in the message");
        return true;
      });
    }
  });
});
