import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { formatAtoms, mulDivDown, mulDivUp, parseAtoms } from "../../src/core/money.js";

describe("money", () => {
  it("parses decimal strings and JSON numbers to exact atoms", () => {
    assert.deepEqual(parseAtoms("1.5"), { ok: true, atoms: 150_000_000n });
    assert.deepEqual(parseAtoms(0.1), { ok: true, atoms: 10_000_000n });
    assert.deepEqual(parseAtoms(1e-8), { ok: true, atoms: 1n });
    assert.deepEqual(parseAtoms(1e21), { ok: true, atoms: 10n ** 21n * 100_000_000n });
    assert.deepEqual(parseAtoms("-2"), { ok: true, atoms: -200_000_000n });
    assert.deepEqual(parseAtoms("1.000000000"), { ok: true, atoms: 100_000_000n });
  });

  it("refuses more than 8 decimals instead of rounding", () => {
    assert.deepEqual(parseAtoms("0.000000001"), { ok: false, reason: "precision" });
    assert.deepEqual(parseAtoms(1.123456789), { ok: false, reason: "precision" });
  });

  it("refuses text that is not a plain decimal", () => {
    for (const bad of ["", "abc", "1.", ".5", "1e5", "0x10", "1,5", " ", "NaN"]) {
      assert.deepEqual(parseAtoms(bad), { ok: false, reason: "format" }, bad);
    }
    assert.deepEqual(parseAtoms(Number.NaN), { ok: false, reason: "format" });
    assert.deepEqual(parseAtoms(Number.POSITIVE_INFINITY), { ok: false, reason: "format" });
  });

  it("formats the shortest exact decimal", () => {
    assert.equal(formatAtoms(150_000_000n), "1.5");
    assert.equal(formatAtoms(0n), "0");
    assert.equal(formatAtoms(1n), "0.00000001");
    assert.equal(formatAtoms(-250_000_000n), "-2.5");
  });

  it("round-trips every atom count through its decimal text", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), (atoms) => {
        assert.deepEqual(parseAtoms(formatAtoms(atoms)), { ok: true, atoms });
      }),
    );
  });

  it("rounds products down, or up where asked, and the two differ by at most one atom", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 18n }),
        fc.bigInt({ min: 0n, max: 10n ** 8n }),
        fc.bigInt({ min: 1n, max: 10n ** 8n }),
        (a, b, c) => {
          const down = mulDivDown(a, b, c);
          const up = mulDivUp(a, b, c);
          assert.ok(down * c <= a * b && (down + 1n) * c > a * b);
          assert.ok(up - down === 0n || up - down === 1n);
        },
      ),
    );
  });
});
