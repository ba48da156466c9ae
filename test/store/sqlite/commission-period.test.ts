// The commission projector's month of a fee (createPeriodOf, src/store/sqlite/merchant-commissions.ts)
// remembers the last month's bounds: for any sequence of times it answers what periodOf does,
// across month and year ends in either direction.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { periodOf } from "../../../src/store/merchant-commissions.js";
import { createPeriodOf } from "../../../src/store/sqlite/merchant-commissions.js";

/** Times near the ends of months from 1970 to 2200, to the millisecond, and anywhere in between. */
const timeArbitrary = fc.oneof(
  fc
    .record({
      year: fc.integer({ min: 1970, max: 2200 }),
      month: fc.integer({ min: 0, max: 11 }),
      offsetMs: fc.integer({ min: -2, max: 1 }),
    })
    .map(({ year, month, offsetMs }) => Math.max(0, Date.UTC(year, month, 1) + offsetMs)),
  fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) }),
);

describe("commission period of a fee", () => {
  it("answers as periodOf for every time of any sequence", () => {
    fc.assert(
      fc.property(fc.array(timeArbitrary, { maxLength: 50 }), (times) => {
        const periodAt = createPeriodOf();
        for (const timeMs of times) assert.equal(periodAt(timeMs), periodOf(timeMs), `at ${timeMs}`);
      }),
      { numRuns: 500 },
    );
  });
});
