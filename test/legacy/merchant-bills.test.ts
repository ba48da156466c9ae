// The monthly bill's arithmetic: billPeriod parsing and the fee-weighted commission rate.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commissionRatePercent, parseBillPeriod } from "../../src/legacy/merchant-bills.js";

describe("parseBillPeriod", () => {
  it("takes a number YYYYMM and gives the UTC month's bounds", () => {
    assert.deepEqual(parseBillPeriod(202612), {
      period: "202612",
      startMs: Date.UTC(2026, 11, 1),
      endMs: Date.UTC(2027, 0, 1),
    });
    for (const malformed of ["202611", 202613, 202600, 2026, 20261, 202611.5, null, 199912]) {
      assert.equal(parseBillPeriod(malformed), undefined, String(malformed));
    }
  });
});

describe("commissionRatePercent", () => {
  const commission = (byRate: { rateBps: number; feeTotal: bigint }[]) => ({
    merchantId: 1,
    period: "202611",
    feeTotal: byRate.reduce((sum, row) => sum + row.feeTotal, 0n),
    commissionTotal: 0n,
    byRate: byRate.map((row) => ({ ...row, commissionTotal: 0n })),
  });

  it("is the merchant's rate, fee-weighted when it changed within the month", () => {
    assert.equal(commissionRatePercent(commission([]), 1_500), 15);
    assert.equal(commissionRatePercent(commission([{ rateBps: 2_000, feeTotal: 5n }]), 1_000), 20);
    // 1 fee at 10% and 2 at 25%: (10 + 50) / 3 = 20%.
    assert.equal(
      commissionRatePercent(
        commission([
          { rateBps: 1_000, feeTotal: 100n },
          { rateBps: 2_500, feeTotal: 200n },
        ]),
        0,
      ),
      20,
    );
    // Rounded down to 4 decimals: (10 + 0 + 10) / 3 = 6.6666…%.
    assert.equal(
      commissionRatePercent(
        commission([
          { rateBps: 1_000, feeTotal: 1n },
          { rateBps: 0, feeTotal: 1n },
          { rateBps: 1_000, feeTotal: 1n },
        ]),
        0,
      ),
      6.6666,
    );
  });
});
