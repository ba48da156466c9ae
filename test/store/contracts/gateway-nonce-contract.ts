// The durable gateway NonceStore contract, run on every durable adapter: fresh once, replayed
// inside the window (after a restart too), fresh again after it, per partner, bounded per partner.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { NonceStore } from "../../../src/store/gateway-nonces.js";

export interface GatewayNonceHarness {
  /** A new, empty store, or (with `sameAs`) a fresh instance over `sameAs`'s durable data. */
  create(
    options: { windowMs: number; entriesPerPartnerMax?: number; nowMs: () => number },
    sameAs?: NonceStore,
  ): Promise<NonceStore>;
}

export function describeGatewayNonceStoreContract(adapterName: string, harness: GatewayNonceHarness): void {
  describe(`gateway NonceStore contract: ${adapterName}`, { concurrency: false }, () => {
    const clock = () => 0;

    it("answers fresh once, replayed inside the window, fresh again after it, per partner", async () => {
      const store = await harness.create({ windowMs: 1_000, nowMs: clock });
      assert.equal(await store.remember("p", "a", 0), "fresh");
      assert.equal(await store.remember("p", "a", 999), "replayed");
      assert.equal(await store.remember("q", "a", 999), "fresh");
      assert.equal(await store.remember("p", "a", 1_000), "replayed", "the window's last millisecond");
      assert.equal(await store.remember("p", "a", 1_001), "fresh");
      assert.equal(await store.remember("p", "a", 1_002), "replayed");
    });

    // The window's end is inclusive (docs/decisions.md, i31-edges) and each nonce is judged by its
    // own request's clock, whatever else is written with it: in one batch, a request at 999 makes a
    // nonce of 1,001 neither live again nor a nonce of 1,000 expired. After a restart at 1,000 the
    // durable table alone decides.
    for (const restartedAtMs of [undefined, 1_000]) {
      const when = restartedAtMs === undefined ? "" : ` after a restart at ${restartedAtMs}`;
      it(`refuses a nonce through its window's last millisecond, each by its own clock${when}`, async () => {
        const first = await harness.create({ windowMs: 1_000, nowMs: clock });
        assert.equal(await first.remember("p", "edge", 0), "fresh");
        assert.equal(await first.remember("p", "past", 0), "fresh");
        const store =
          restartedAtMs === undefined
            ? first
            : await harness.create({ windowMs: 1_000, nowMs: () => restartedAtMs }, first);
        const outcomes = await Promise.all([
          store.remember("p", "other", 999),
          store.remember("p", "edge", 1_000),
          store.remember("p", "past", 1_001),
        ]);
        assert.deepEqual(outcomes, ["fresh", "replayed", "fresh"]);
      });
    }

    it("still refuses a nonce of the window after a restart", async () => {
      const first = await harness.create({ windowMs: 60_000, nowMs: clock });
      assert.equal(await first.remember("p", "before-restart", 10), "fresh");
      const restarted = await harness.create({ windowMs: 60_000, nowMs: () => 20 }, first);
      assert.equal(await restarted.remember("p", "before-restart", 20), "replayed");
      assert.equal(await restarted.remember("p", "after-restart", 20), "fresh");
    });

    it("still refuses, after a restart, a nonce taken again once its first window had passed", async () => {
      const first = await harness.create({ windowMs: 1_000, nowMs: clock });
      assert.equal(await first.remember("p", "twice", 0), "fresh");
      assert.equal(await first.remember("p", "twice", 1_500), "fresh");
      const restarted = await harness.create({ windowMs: 1_000, nowMs: () => 1_600 }, first);
      assert.equal(await restarted.remember("p", "twice", 1_600), "replayed");
    });

    it("lets one of many concurrent uses of one nonce be fresh", async () => {
      const store = await harness.create({ windowMs: 1_000, nowMs: clock });
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.remember("p", "same", 5)));
      assert.deepEqual(outcomes.filter((outcome) => outcome === "fresh").length, 1);
      assert.deepEqual(outcomes.filter((outcome) => outcome === "replayed").length, 9);
    });

    it("bounds each partner on its own: a full partner is refused, the others are not", async () => {
      const store = await harness.create({ windowMs: 1_000, entriesPerPartnerMax: 3, nowMs: clock });
      for (const nonce of ["a", "b", "c"]) assert.equal(await store.remember("p", nonce, 0), "fresh");
      assert.equal(await store.remember("p", "d", 10), "full");
      assert.equal(await store.remember("q", "d", 10), "fresh");
      assert.equal(await store.remember("p", "d", 5_000), "fresh", "the window passed: room again");
    });
  });
}
