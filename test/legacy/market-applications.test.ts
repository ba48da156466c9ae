// The market application rules without I/O: the application's own checks and the title rules
// (4041 exact, 4010 duplicate, 4013 similar), in the order docs/decisions.md gives.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ApplicationInput,
  checkApplication,
  findTitleConflict,
  titleSimilarity,
  titleWords,
} from "../../src/legacy/market-applications.js";

const nowMs = Date.parse("2026-11-22T10:00:00Z");
const input = (overrides: Partial<ApplicationInput> = {}): ApplicationInput => ({
  title: "Will it snow in Lyon on Christmas Day?",
  categoryId: 1,
  liquidity: 100,
  outcomeOptionsVoList: [
    { optionTitle: "Yes", weight: 0.25 },
    { optionTitle: "No", weight: 0.75 },
  ],
  startTime: "2026-11-22T10:00:00Z",
  endTime: "2026-12-26T00:00:00Z",
  ...overrides,
});

describe("checkApplication", () => {
  it("accepts weights that add up to exactly 1 in decimals, as a partner means them", () => {
    const checked = checkApplication(
      input({
        marketType: "multiple",
        outcomeOptionsVoList: [
          { optionTitle: "Lyon", weight: 0.1 },
          { optionTitle: "Paris", weight: 0.2 },
          { optionTitle: "Nice", weight: 0.7 },
        ],
      }),
      nowMs,
    );
    assert.equal(checked.ok, true);
    if (checked.ok) assert.equal(checked.value.marketType, "MULTIPLE");
  });

  it("reports liquidity before weights, and 8-decimal weights exactly", () => {
    assert.deepEqual(checkApplication(input({ liquidity: "99.99999999" }), nowMs), {
      ok: false,
      problem: { kind: "liquidityTooLow" },
    });
    const off = input({
      outcomeOptionsVoList: [
        { optionTitle: "Yes", weight: "0.33333333" },
        { optionTitle: "No", weight: "0.66666666" },
      ],
    });
    assert.deepEqual(checkApplication(off, nowMs), { ok: false, problem: { kind: "weightsDoNotAddUp" } });
  });

  it("refuses a title over 200 characters, a BINARY market without two options, and past end times", () => {
    const problemOf = (overrides: Partial<ApplicationInput>) => {
      const checked = checkApplication(input(overrides), nowMs);
      return checked.ok ? undefined : checked.problem;
    };
    assert.equal(problemOf({ title: "x".repeat(201) })?.kind, "parameter");
    assert.equal(problemOf({ title: "x".repeat(200) }), undefined);
    assert.deepEqual(
      problemOf({
        outcomeOptionsVoList: [
          { optionTitle: "A", weight: 0.2 },
          { optionTitle: "B", weight: 0.3 },
          { optionTitle: "C", weight: 0.5 },
        ],
      }),
      { kind: "parameter", field: "outcomeOptionsVoList", reason: "a BINARY market has exactly 2 options" },
    );
    assert.equal(problemOf({ endTime: "2026-11-01T00:00:00Z" })?.kind, "parameter");
  });
});

describe("title rules", () => {
  const candidates = {
    marketTitles: ["Will it rain in Paris tomorrow?"],
    applications: [
      { userId: 7, status: "PENDING" as const, title: "Will Lyon host the 2030 final?" },
      { userId: 8, status: "APPROVED" as const, title: "Bitcoin above 100k by June 2027" },
    ],
  };

  it("uses the Jaccard overlap of the titles' words", () => {
    assert.equal(titleSimilarity(titleWords("A b C"), titleWords("c, B; a!")), 1);
    assert.equal(titleSimilarity(titleWords("a b c d"), titleWords("a b c e")), 3 / 5);
  });

  it("finds an existing market's exact title first, then the user's duplicate, then similar titles", () => {
    assert.deepEqual(findTitleConflict("  will it RAIN in paris   tomorrow? ", 7, candidates), {
      kind: "titleExists",
    });
    // Different punctuation is not the exact title, but the same words: similar.
    assert.deepEqual(findTitleConflict("Will it rain in Paris tomorrow", 7, candidates), { kind: "similar" });
    assert.deepEqual(findTitleConflict("will lyon host the 2030 final", 7, candidates), {
      kind: "duplicate",
    });
    // Another user's pending application with the same words is similar, not a duplicate.
    assert.deepEqual(findTitleConflict("will lyon host the 2030 final", 9, candidates), { kind: "similar" });
    assert.deepEqual(findTitleConflict("Bitcoin above 100k by June 2027 close", 9, candidates), {
      kind: "similar",
    });
    assert.equal(findTitleConflict("Bitcoin above 150k by December 2028", 9, candidates), undefined);
  });
});
