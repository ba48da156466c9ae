// Condition ids of the Polymarket-compatible reads and of /ws/market: a pure function of the market and outcome ids
// (so a restart, which replays the same ids, gives the same condition id), pinned by a known
// answer, and found back from the id by an index that catches up with outcomes added later.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import type { ExchangeState } from "../../src/core/exchange.js";
import { ConditionIndex, conditionIdOf, questionIdOf } from "../../src/realtime/condition-ids.js";

function stateWithOutcomes(pairs: readonly [marketId: number, outcomeId: number][]): ExchangeState {
  const outcomes = new Map(pairs.map(([marketId, outcomeId]) => [outcomeId, { marketId, outcomeId }]));
  return { outcomes } as unknown as ExchangeState;
}

describe("condition ids", () => {
  it("are 0x and the SHA-256 of the market and outcome ids, pinned by a known answer", () => {
    assert.equal(conditionIdOf(1, 1), "0x87e4e2be47369b9699bc33d55e3582ee494c5eef13da27e1617cfdecc36bfcea");
    assert.equal(
      conditionIdOf(7, 12),
      `0x${createHash("sha256").update("predex:condition:7:12").digest("hex")}`,
    );
    assert.equal(questionIdOf(1, 1), "0x25c6637c0eee4885219f0ec9346e83ec64f895a0bd723a0976d5ced7ad8925ba");
    assert.notEqual(conditionIdOf(1, 2), conditionIdOf(2, 1));
    assert.match(conditionIdOf(123, 456), /^0x[0-9a-f]{64}$/);
  });

  it("are found back by the index, which catches up with outcomes added after its first use", () => {
    const index = new ConditionIndex();
    const state = stateWithOutcomes([
      [1, 1],
      [1, 2],
    ]);
    assert.equal(index.outcomeIdOf(state, conditionIdOf(1, 2)), 2);
    assert.equal(index.outcomeIdOf(state, conditionIdOf(1, 2).toUpperCase().replace("0X", "0x")), 2);
    assert.equal(index.outcomeIdOf(state, conditionIdOf(2, 3)), undefined);
    const grown = stateWithOutcomes([
      [1, 1],
      [1, 2],
      [2, 3],
    ]);
    assert.equal(index.outcomeIdOf(grown, conditionIdOf(2, 3)), 3);
    for (const text of ["", "0x12", `0x${"g".repeat(64)}`, conditionIdOf(1, 1).slice(2)]) {
      assert.equal(index.outcomeIdOf(grown, text), undefined, text);
    }
  });
});
