// The LegacyNonceStore contract, run on every adapter.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LegacyNonceStore } from "../../../src/store/legacy.js";

export function describeLegacyNonceStoreContract(
  adapterName: string,
  create: () => Promise<LegacyNonceStore>,
): void {
  describe(`LegacyNonceStore contract: ${adapterName}`, { concurrency: false }, () => {
    it("remembers a nonce once per partner until it expires", async () => {
      const store = await create();
      assert.equal(await store.remember(1, "n", 0, 100), true);
      assert.equal(await store.remember(1, "n", 50, 150), false, "a reuse inside the window");
      assert.equal(await store.remember(2, "n", 50, 150), true, "another partner's nonce");
      // Refused through its expiry's own millisecond: a request accepted with a timestamp 5 minutes
      // ahead passes the timestamp check again exactly 10 minutes after its first use.
      assert.equal(await store.remember(1, "n", 100, 200), false, "the window's last millisecond");
      assert.equal(await store.remember(1, "n", 101, 201), true, "expired: fresh again");
      assert.equal(await store.remember(1, "n", 201, 301), false, "and remembered again from then");
    });

    it("lets exactly one of many concurrent uses of a nonce through", async () => {
      const store = await create();
      const answers = await Promise.all(Array.from({ length: 10 }, () => store.remember(3, "race", 0, 100)));
      assert.equal(answers.filter(Boolean).length, 1);
    });

    it("keeps working across the prune of expired nonces", async () => {
      const store = await create();
      for (let index = 0; index < 20; index += 1) assert.ok(await store.remember(4, `p${index}`, 0, 10));
      // Far past the prune interval: the expired rows go, the call itself answers as usual.
      assert.equal(await store.remember(4, "p0", 10 * 60_000, 10 * 60_000 + 10), true);
      assert.equal(await store.remember(4, "p0", 10 * 60_000 + 1, 10 * 60_000 + 11), false);
    });
  });
}
