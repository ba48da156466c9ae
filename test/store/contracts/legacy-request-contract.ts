// The LegacyRequestStore contract, run on every adapter: the queue, its claims (one claimant per
// request, leases, each user's order kept), results recorded only by the holder, and delivery
// claims. The multi-node races themselves are in test/store/postgres-shared-state.test.ts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type LegacyRequestCompletion,
  type LegacyRequestStore,
  type NewLegacyRequest,
  notifyStatuses,
} from "../../../src/store/legacy.js";

export const legacyInstruction = {
  marketId: 1,
  outcomeId: 1,
  optionId: 1,
  direction: "BUY",
  orderType: "LIMIT",
  coreOrderType: "LIMIT",
  price: "0.25",
  amount: null,
  shares: "4",
} as const;

export const newRequest = (requestId: string, userId: number, nowMs = 1_000): NewLegacyRequest => ({
  requestId,
  merchantId: 9,
  userId,
  instruction: legacyInstruction,
  notifyContent: `{"requestId":"${requestId}"}`,
  nowMs,
});

const success = (requestId: string, nextNotifyAtMs: number | null = 0): LegacyRequestCompletion => ({
  requestId,
  status: "SUCCESS",
  errorMsg: null,
  notifyContent: `{"done":"${requestId}"}`,
  notifyStatus: notifyStatuses.pending,
  nextNotifyAtMs,
});

const lease = 1_000;
const ids = (records: readonly { requestId: string }[]) => records.map((record) => record.requestId);

export function describeLegacyRequestStoreContract(
  adapterName: string,
  create: () => Promise<LegacyRequestStore>,
): void {
  describe(`LegacyRequestStore contract: ${adapterName}`, { concurrency: false }, () => {
    it("queues a request exactly and lists the PENDING ones in submission order", async () => {
      const store = await create();
      const first = await store.enqueue(newRequest("r1", 1, 500));
      assert.deepEqual(first, {
        requestId: "r1",
        sequence: first.sequence,
        merchantId: 9,
        userId: 1,
        instruction: legacyInstruction,
        status: "PENDING",
        errorMsg: null,
        notifyContent: '{"requestId":"r1"}',
        notifyStatus: notifyStatuses.pending,
        notifyRetryTimes: 0,
        notifyUpdateTimeMs: null,
        nextNotifyAtMs: null,
        createTimeMs: 500,
        updateTimeMs: 500,
      });
      await store.enqueue(newRequest("r2", 2));
      await assert.rejects(store.enqueue(newRequest("r1", 3)), "a request id is queued once");
      assert.deepEqual(await store.find("r1"), first);
      assert.equal(await store.find("nope"), undefined);
      assert.deepEqual(ids(await store.pending(10)), ["r1", "r2"]);
      assert.deepEqual(ids(await store.pending(1)), ["r1"]);
    });

    it("gives each request to one claimant, oldest first, until its lease lapses", async () => {
      const store = await create();
      for (const [index, userId] of [1, 2, 3, 4].entries())
        await store.enqueue(newRequest(`c${index}`, userId));
      const a = await store.claim({ claimant: "a", limit: 2, nowMs: 0, leaseMs: lease });
      assert.deepEqual(ids(a), ["c0", "c1"]);
      const b = await store.claim({ claimant: "b", limit: 10, nowMs: 0, leaseMs: lease });
      assert.deepEqual(ids(b), ["c2", "c3"]);
      assert.deepEqual(ids(await store.claim({ claimant: "c", limit: 10, nowMs: 999, leaseMs: lease })), []);
      assert.deepEqual(
        ids(await store.claim({ claimant: "a", limit: 10, nowMs: 500, leaseMs: lease })),
        ["c0", "c1"],
        "a claimant gets its own claims again (a retry after the engine refused)",
      );
      assert.deepEqual(
        ids(await store.claim({ claimant: "c", limit: 10, nowMs: 1_000, leaseMs: lease })),
        ["c2", "c3"],
        "b's lease lapsed at 1000 (a's was renewed at 500)",
      );
    });

    it("keeps each user's order: a request waits while an older one of its user is held by another", async () => {
      const store = await create();
      await store.enqueue(newRequest("u1-a", 1));
      await store.enqueue(newRequest("u2-a", 2));
      await store.enqueue(newRequest("u1-b", 1));
      await store.enqueue(newRequest("u2-b", 2));
      assert.deepEqual(ids(await store.claim({ claimant: "a", limit: 1, nowMs: 0, leaseMs: lease })), [
        "u1-a",
      ]);
      assert.deepEqual(
        ids(await store.claim({ claimant: "b", limit: 10, nowMs: 0, leaseMs: lease })),
        ["u2-a", "u2-b"],
        "u1-b waits for u1-a",
      );
      await store.complete([success("u1-a")], 10, "a");
      assert.deepEqual(ids(await store.claim({ claimant: "b", limit: 10, nowMs: 20, leaseMs: lease })), [
        "u2-a",
        "u1-b",
        "u2-b",
      ]);
    });

    it("records results only from the request's holder, once", async () => {
      const store = await create();
      await store.enqueue(newRequest("h1", 1));
      await store.enqueue(newRequest("h2", 2));
      await store.claim({ claimant: "a", limit: 10, nowMs: 0, leaseMs: lease });
      await store.complete([success("h1")], 5, "b");
      assert.equal((await store.find("h1"))?.status, "PENDING", "b does not hold h1");
      // a's lease lapsed but nobody took h1 over: a still holds it and its result counts.
      await store.complete([success("h1", 0)], 2_000, "a");
      const done = await store.find("h1");
      assert.deepEqual(
        [done?.status, done?.notifyContent, done?.nextNotifyAtMs, done?.updateTimeMs],
        ["SUCCESS", '{"done":"h1"}', 0, 2_000],
      );
      // h2 is taken over after the lapse: a's late result is dropped, the new holder's counts.
      assert.deepEqual(ids(await store.claim({ claimant: "b", limit: 10, nowMs: 2_000, leaseMs: lease })), [
        "h2",
      ]);
      await store.complete(
        [{ ...success("h2"), status: "FAILED", errorMsg: "late", notifyContent: "{}" }],
        2_001,
        "a",
      );
      await store.complete([success("h2")], 2_002, "b");
      assert.equal((await store.find("h2"))?.status, "SUCCESS");
      await store.complete([{ ...success("h2"), status: "FAILED", errorMsg: "again" }], 2_003, "b");
      assert.equal((await store.find("h2"))?.errorMsg, null, "a finished request is left as it is");
      assert.deepEqual(await store.pending(10), []);
    });

    it("gives back a claimant's requests at once on release", async () => {
      const store = await create();
      await store.enqueue(newRequest("g1", 1));
      await store.claim({ claimant: "a", limit: 10, nowMs: 0, leaseMs: lease });
      await store.releaseClaims("a");
      assert.deepEqual(ids(await store.claim({ claimant: "b", limit: 10, nowMs: 1, leaseMs: lease })), [
        "g1",
      ]);
    });

    it("hands concurrent claimants disjoint batches that cover the queue", async () => {
      const store = await create();
      for (let index = 0; index < 40; index += 1) await store.enqueue(newRequest(`k${index}`, 100 + index));
      const batches = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          store.claim({ claimant: `n${index}`, limit: 5, nowMs: 0, leaseMs: lease }),
        ),
      );
      const claimed = batches.flatMap(ids);
      assert.equal(claimed.length, 40);
      assert.equal(new Set(claimed).size, 40);
    });

    it("claims a due delivery for one claimant, keeps its retry count, and lets it lapse back", async () => {
      const store = await create();
      await store.enqueue(newRequest("d1", 1));
      await store.enqueue(newRequest("d2", 2));
      await store.claim({ claimant: "x", limit: 10, nowMs: 0, leaseMs: lease });
      await store.complete([success("d1", 0), success("d2", 50)], 1, "x");
      assert.deepEqual(
        ids(await store.claimDueNotifications({ claimant: "a", limit: 10, nowMs: 10, leaseMs: lease })),
        ["d1"],
      );
      assert.deepEqual(
        ids(await store.claimDueNotifications({ claimant: "b", limit: 10, nowMs: 100, leaseMs: lease })),
        ["d2"],
        "d1 is a's until 1010",
      );
      // a's attempt failed: recorded with the next try at 500.
      assert.equal(
        await store.recordNotifyAttempt(
          { requestId: "d1", notifyStatus: notifyStatuses.pending, notifyRetryTimes: 1, nextNotifyAtMs: 500 },
          20,
          "a",
        ),
        true,
      );
      const failedOnce = await store.find("d1");
      assert.deepEqual(
        [failedOnce?.notifyRetryTimes, failedOnce?.nextNotifyAtMs, failedOnce?.notifyUpdateTimeMs],
        [1, 500, 20],
      );
      assert.equal(
        await store.recordNotifyAttempt(
          {
            requestId: "d1",
            notifyStatus: notifyStatuses.delivered,
            notifyRetryTimes: 1,
            nextNotifyAtMs: null,
          },
          21,
          "a",
        ),
        false,
        "a no longer holds d1 once its attempt is recorded",
      );
      // b dies holding d2; at the lapse (100 + 1000) it is due again, for c, retry count kept.
      assert.deepEqual(
        ids(await store.claimDueNotifications({ claimant: "c", limit: 10, nowMs: 1_100, leaseMs: lease })),
        ["d1", "d2"],
      );
      assert.equal((await store.find("d1"))?.notifyRetryTimes, 1);
      assert.equal(
        await store.recordNotifyAttempt(
          {
            requestId: "d2",
            notifyStatus: notifyStatuses.delivered,
            notifyRetryTimes: 0,
            nextNotifyAtMs: null,
          },
          1_101,
          "b",
        ),
        false,
        "b's late record is dropped",
      );
      assert.equal(
        await store.recordNotifyAttempt(
          {
            requestId: "d2",
            notifyStatus: notifyStatuses.delivered,
            notifyRetryTimes: 0,
            nextNotifyAtMs: null,
          },
          1_102,
          "c",
        ),
        true,
      );
      const delivered = await store.find("d2");
      assert.deepEqual(
        [delivered?.notifyStatus, delivered?.nextNotifyAtMs],
        [notifyStatuses.delivered, null],
      );
      assert.deepEqual(
        ids(
          await store.claimDueNotifications({ claimant: "c", limit: 10, nowMs: 1_000_000, leaseMs: lease }),
        ),
        ["d1"],
        "a delivered one is never due again",
      );
    });
  });
}
