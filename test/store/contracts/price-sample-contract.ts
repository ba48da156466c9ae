// The PriceSampleStore contract (src/store/price-samples.ts), run on SQLite and PostgreSQL
// (test/store/price-samples.test.ts): ranges oldest first within bounds and limits; a sample of an
// (option, time) already stored is kept as it was, so several nodes' samplers of one interval leave
// one row per option, even when they write at the same instant.

import assert from "node:assert/strict";
import { afterEach, it } from "node:test";
import type { PriceSampleStore } from "../../../src/store/price-samples.js";
import type { PortHarness, PortInstance } from "../../support/port-harness.js";

export function describePriceSampleStoreContract(harness: PortHarness<PriceSampleStore>): void {
  let open: PortInstance<PriceSampleStore> | undefined;
  const start = async () => {
    open = await harness.open();
    return open;
  };
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });

  it("answers a range oldest first, within its bounds, at most `limit`, for that option only", async () => {
    const { store } = await start();
    await store.insert([
      { optionId: 1, timeMs: 180_000, priceAtoms: 30_000_000 },
      { optionId: 1, timeMs: 60_000, priceAtoms: 10_000_000 },
      { optionId: 2, timeMs: 60_000, priceAtoms: 90_000_000 },
      { optionId: 1, timeMs: 120_000, priceAtoms: 20_000_000 },
      { optionId: 1, timeMs: 240_000, priceAtoms: 99_999_999 },
    ]);
    assert.deepEqual(await store.range(1, 60_000, 180_000, 10), [
      { optionId: 1, timeMs: 60_000, priceAtoms: 10_000_000 },
      { optionId: 1, timeMs: 120_000, priceAtoms: 20_000_000 },
      { optionId: 1, timeMs: 180_000, priceAtoms: 30_000_000 },
    ]);
    assert.deepEqual(
      (await store.range(1, 0, 1_000_000, 2)).map((sample) => sample.timeMs),
      [60_000, 120_000],
    );
    assert.deepEqual(await store.range(2, 0, 1_000_000, 10), [
      { optionId: 2, timeMs: 60_000, priceAtoms: 90_000_000 },
    ]);
    assert.deepEqual(await store.range(3, 0, 1_000_000, 10), []);
    await store.insert([]);
  });

  it("keeps the first sample of an (option, time): a second node's sample of that interval is a no-op", async () => {
    const { store, another } = await start();
    await store.insert([{ optionId: 1, timeMs: 60_000, priceAtoms: 40_000_000 }]);
    const secondNode = await another();
    await secondNode.insert([
      { optionId: 1, timeMs: 60_000, priceAtoms: 41_000_000 },
      { optionId: 1, timeMs: 120_000, priceAtoms: 42_000_000 },
    ]);
    assert.deepEqual(await store.range(1, 0, 1_000_000, 10), [
      { optionId: 1, timeMs: 60_000, priceAtoms: 40_000_000 },
      { optionId: 1, timeMs: 120_000, priceAtoms: 42_000_000 },
    ]);
  });

  it("writes one row per option and interval when several nodes insert the same interval at once", async () => {
    const { store, another } = await start();
    const nodes = [store, await another(), await another()];
    const round = (price: number) =>
      Array.from({ length: 50 }, (_, index) => ({ optionId: index + 1, timeMs: 300_000, priceAtoms: price }));
    await Promise.all(nodes.map((node, index) => node.insert(round(10_000_000 * (index + 1)))));
    for (let optionId = 1; optionId <= 50; optionId += 1) {
      const samples = await store.range(optionId, 0, 1_000_000, 10);
      assert.equal(samples.length, 1, `option ${optionId}`);
      // One node's sample, whole: never a mix.
      assert.ok([10_000_000, 20_000_000, 30_000_000].includes(samples[0]!.priceAtoms));
    }
  });
}
