// The LegacyApplicationStore contract, run on every adapter. The conflict rule here is a plain
// "same title among open applications", so the test is about the store (atomicity, filters,
// paging, review), not the similarity rules (test/legacy/market-applications.test.ts).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  ApplicationProblem,
  ApplicationTerms,
  ConflictCandidates,
  LegacyApplicationStore,
} from "../../../src/store/legacy-applications.js";

const terms = (title: string): ApplicationTerms => ({
  title,
  description: "d",
  categoryId: 3,
  modelType: "AMM",
  marketType: "BINARY",
  liquidity: 12_345_678_901_234n,
  options: [
    { optionTitle: "Yes", weight: 25_000_000n },
    { optionTitle: "No", weight: 75_000_000n },
  ],
  startTimeMs: 1_700_000_000_000,
  endTimeMs: 1_800_000_000_000,
});

const sameOpenTitle =
  (title: string) =>
  (candidates: ConflictCandidates): ApplicationProblem | undefined =>
    candidates.applications.some((application) => application.title === title) ||
    candidates.marketTitles.includes(title)
      ? { kind: "titleExists" }
      : undefined;

export function describeLegacyApplicationStoreContract(
  adapterName: string,
  create: () => Promise<LegacyApplicationStore>,
): void {
  describe(`LegacyApplicationStore contract: ${adapterName}`, { concurrency: false }, () => {
    it("grants and withdraws the creator flag, idempotently", async () => {
      const store = await create();
      assert.equal(await store.isCreator(7), false);
      await store.setCreator(7, true, 1);
      await store.setCreator(7, true, 2);
      assert.equal(await store.isCreator(7), true);
      await store.setCreator(7, false, 3);
      assert.equal(await store.isCreator(7), false);
    });

    it("stores a submission exactly (bigint atoms included) and refuses a conflicting one", async () => {
      const store = await create();
      const submitted = await store.submit(7, terms("Rain?"), 100, sameOpenTitle("Rain?"));
      assert.ok(submitted.ok);
      assert.deepEqual(submitted.value, {
        ...terms("Rain?"),
        applicationId: submitted.value.applicationId,
        userId: 7,
        status: "PENDING",
        marketId: null,
        rejectReason: null,
        createTimeMs: 100,
        updateTimeMs: 100,
      });
      assert.deepEqual(await store.find(submitted.value.applicationId), submitted.value);
      const again = await store.submit(8, terms("Rain?"), 101, sameOpenTitle("Rain?"));
      assert.deepEqual(again, { ok: false, problem: { kind: "titleExists" } });
      assert.equal(await store.find(submitted.value.applicationId + 100), undefined);
    });

    it("lets one of many concurrent submissions of one title through", async () => {
      const store = await create();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          store.submit(index, terms("Snow?"), 5, sameOpenTitle("Snow?")),
        ),
      );
      assert.equal(results.filter((result) => result.ok).length, 1);
    });

    it("reviews a PENDING application once, and lists newest first by status and user with paging", async () => {
      const store = await create();
      const ids: number[] = [];
      for (const [index, userId] of [1, 2, 1, 1].entries()) {
        const result = await store.submit(userId, terms(`t${index}`), 10 + index, () => undefined);
        assert.ok(result.ok);
        ids.push(result.value.applicationId);
      }
      const approved = await store.review(ids[0]!, { status: "APPROVED", marketId: 42 }, 50);
      assert.equal(approved?.status, "APPROVED");
      assert.equal(approved?.marketId, 42);
      assert.equal(approved?.updateTimeMs, 50);
      assert.equal(await store.review(ids[0]!, { status: "REJECTED", reason: "late" }, 51), undefined);
      const rejected = await store.review(ids[1]!, { status: "REJECTED", reason: "no" }, 52);
      assert.deepEqual([rejected?.status, rejected?.rejectReason], ["REJECTED", "no"]);

      const all = await store.list({}, { page: 1, pageSize: 10 });
      assert.equal(all.total, 4);
      assert.deepEqual(
        all.records.map((record) => record.applicationId),
        [...ids].reverse(),
      );
      const pending = await store.list({ status: "PENDING" }, { page: 1, pageSize: 10 });
      assert.deepEqual(
        pending.records.map((record) => record.applicationId),
        [ids[3], ids[2]],
      );
      const mine = await store.list({ status: "PENDING", userId: 1 }, { page: 2, pageSize: 1 });
      assert.equal(mine.total, 2);
      assert.deepEqual(
        mine.records.map((record) => record.applicationId),
        [ids[2]],
      );
      const far = await store.list({}, { page: 1e20, pageSize: 10 });
      assert.deepEqual(far, { total: 4, records: [] });
    });
  });
}
