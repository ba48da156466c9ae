// Times on the current interface: ISO 8601 UTC at second precision, whatever order they are asked in.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { isoSeconds } from "../../src/contract/wire-format.js";

const reference = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("isoSeconds", () => {
  it("shows a time to the second, the same as Date's ISO text without its milliseconds", () => {
    assert.equal(isoSeconds(Date.UTC(2026, 10, 22, 10, 0, 0, 999)), "2026-11-22T10:00:00Z");
    assert.equal(isoSeconds(-1), "1969-12-31T23:59:59Z");
    assert.equal(isoSeconds(-1_000), "1969-12-31T23:59:59Z");
    assert.equal(isoSeconds(-1_001), "1969-12-31T23:59:58Z");
  });

  it("gives each time its own second in any sequence of times, near or far apart", () => {
    const time = fc.integer({ min: -8_640_000_000_000, max: 8_640_000_000_000 });
    const near = fc.tuple(time, fc.array(fc.integer({ min: -2_500, max: 2_500 }), { maxLength: 20 }));
    fc.assert(
      fc.property(near, ([start, steps]) => {
        let ms = start;
        for (const step of [0, ...steps]) {
          ms = Math.min(8_640_000_000_000, Math.max(-8_640_000_000_000, ms + step));
          assert.equal(isoSeconds(ms), reference(ms));
        }
      }),
    );
  });

  it("still refuses a time that is not one", () => {
    assert.throws(() => isoSeconds(Number.NaN), RangeError);
  });
});
