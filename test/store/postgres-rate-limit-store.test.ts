// The shared @fastify/rate-limit store on PostgreSQL, through the interface the plugin calls:
// concurrent increments from two nodes (two pools) count every request exactly once, windows start at
// a key's first request (as in process) and start again at zero, limiters and their children count apart.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { openPostgresRateLimitStores } from "../../src/store/postgres/rate-limit-store.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresDatabases } from "../support/postgres-databases.js";

const skipReason = postgresSkipReason();

interface PluginStore {
  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindowMs: number,
    max: number,
  ): void;
  child(routeOptions: unknown): PluginStore;
}

const increment = (store: PluginStore, key: string, windowMs = 1_000) =>
  new Promise<{ current: number; ttl: number }>((resolve, reject) =>
    store.incr(key, (error, result) => (error === null ? resolve(result!) : reject(error)), windowMs, 50),
  );

if (skipReason !== undefined) {
  it("shared rate-limit store: postgres", { skip: skipReason }, () => {});
} else {
  const databases = postgresDatabases("ratestore");
  after(() => databases.close());

  describe("PostgreSQL rate-limit store", () => {
    it("counts concurrent requests of two nodes on one key exactly once each", async () => {
      const url = await databases.fresh();
      let nowMs = 10_250;
      const clock = () => nowMs;
      const [storesA, storesB] = await Promise.all([
        openPostgresRateLimitStores(databases.pool(url)),
        openPostgresRateLimitStores(databases.pool(url)),
      ]);
      const nodeA = new (storesA("legacy", clock) as unknown as new (options: unknown) => PluginStore)({});
      const nodeB = new (storesB("legacy", clock) as unknown as new (options: unknown) => PluginStore)({});
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, index) => increment(index % 2 === 0 ? nodeA : nodeB, "merchant:1")),
      );
      assert.deepEqual(
        results.map((result) => result.current).sort((a, b) => a - b),
        Array.from({ length: 80 }, (_, index) => index + 1),
      );
      assert.ok(
        results.every((result) => result.ttl === 1_000),
        "the window started at the key's first request and ends at 11,250",
      );
      assert.equal((await increment(nodeB, "merchant:2")).current, 1, "another key counts apart");

      nowMs = 11_249;
      assert.equal((await increment(nodeB, "merchant:1")).current, 81, "still inside the window");
      nowMs = 11_250;
      const next = await increment(nodeA, "merchant:1");
      assert.deepEqual(next, { current: 1, ttl: 1_000 }, "a new window starts at zero");

      const partner = new (storesA("partner", clock) as unknown as new (options: unknown) => PluginStore)({});
      assert.equal((await increment(partner, "merchant:1")).current, 1, "another limiter counts apart");
      const childA = nodeA.child({});
      const childB = nodeB.child({});
      assert.equal((await increment(childA, "merchant:1")).current, 1, "a child limiter counts apart");
      assert.equal(
        (await increment(childB, "merchant:1")).current,
        2,
        "the same child on the other node shares it",
      );
    });
  });
}
