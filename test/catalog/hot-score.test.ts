import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addHeat, hotScoreAt, hotScoreHalfLifeMs } from "../../src/store/hot-score.js";

const now = Date.UTC(2026, 10, 22, 12);

describe("hotScore", () => {
  it("is 0 before any activity and the sum of fresh weights", () => {
    assert.equal(hotScoreAt(null, now), 0);
    const heat = addHeat(addHeat(null, 10, now), 5, now);
    assert.equal(hotScoreAt(heat, now), 15);
  });

  it("halves every half-life", () => {
    const heat = addHeat(null, 100, now);
    assert.equal(hotScoreAt(heat, now + hotScoreHalfLifeMs), 50);
    assert.equal(hotScoreAt(heat, now + 2 * hotScoreHalfLifeMs), 25);
  });

  it("weighs older activity less, so heat orders markets as the score does", () => {
    const old = addHeat(null, 100, now - 3 * hotScoreHalfLifeMs);
    const recent = addHeat(null, 20, now);
    assert.ok(recent! > old!);
    assert.ok(hotScoreAt(recent, now) > hotScoreAt(old, now));
  });

  it("ignores zero and negative weights and stays finite years later", () => {
    assert.equal(addHeat(null, 0, now), null);
    const heat = addHeat(null, 1e9, Date.UTC(2040, 0, 1));
    assert.ok(Number.isFinite(heat));
    // log2 and back keeps about 15 significant digits.
    assert.ok(Math.abs(hotScoreAt(heat, Date.UTC(2040, 0, 1)) - 1e9) < 1e-2);
  });
});
