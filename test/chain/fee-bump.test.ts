// The fees of a withdrawal's transactions (src/chain/fee-bump.ts): a replacement raises both
// EIP-1559 fees by at least the bump over the highest offered so far — what a node's pool requires
// to take it — never offers less than the node's estimate nor more than the cap, and is refused
// exactly when the cap leaves no room for the bump.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { bumped, feesOf, firstFees, highestFees, replacementFees } from "../../src/chain/fee-bump.js";

const gwei = 1_000_000_000n;
const wei = fc.bigInt({ min: 0n, max: 10_000n * gwei });
const fees = fc.record({ maxFeePerGas: wei, maxPriorityFeePerGas: wei });
const policy = fc.record({
  bumpPercent: fc.integer({ min: 10, max: 100 }),
  maxFeePerGasCap: fc.bigInt({ min: 1n, max: 20_000n * gwei }),
});

describe("withdrawal transaction fees", () => {
  it("a replacement raises both fees by the bump, follows the estimate, and stays under the cap", () => {
    fc.assert(
      fc.property(fees, fees, policy, (highest, estimate, rules) => {
        const next = replacementFees(highest, estimate, rules);
        const raisedEnough = (after: bigint, before: bigint) =>
          after * 100n >= before * BigInt(100 + rules.bumpPercent) && after > before;
        const feasible =
          bumped(highest.maxFeePerGas, rules.bumpPercent) <= rules.maxFeePerGasCap &&
          bumped(highest.maxPriorityFeePerGas, rules.bumpPercent) <= rules.maxFeePerGasCap;
        if (next === undefined) {
          assert.equal(feasible, false, "refused only when the cap leaves no room");
          return;
        }
        assert.ok(feasible);
        assert.ok(raisedEnough(next.maxFeePerGas, highest.maxFeePerGas), "max fee raised by the bump");
        assert.ok(raisedEnough(next.maxPriorityFeePerGas, highest.maxPriorityFeePerGas), "priority raised");
        assert.ok(next.maxFeePerGas <= rules.maxFeePerGasCap, "never above the cap");
        assert.ok(next.maxPriorityFeePerGas <= next.maxFeePerGas, "priority within the max fee");
        const capped = (value: bigint) => (value < rules.maxFeePerGasCap ? value : rules.maxFeePerGasCap);
        assert.ok(next.maxFeePerGas >= capped(estimate.maxFeePerGas), "no less than the estimate");
        assert.ok(
          next.maxPriorityFeePerGas >= capped(estimate.maxPriorityFeePerGas) ||
            next.maxPriorityFeePerGas === next.maxFeePerGas,
        );
      }),
    );
  });

  it("the first offer is the estimate within the cap", () => {
    fc.assert(
      fc.property(fees, fc.bigInt({ min: 1n, max: 20_000n * gwei }), (estimate, cap) => {
        const first = firstFees(estimate, cap);
        assert.ok(first.maxFeePerGas <= cap && first.maxPriorityFeePerGas <= first.maxFeePerGas);
        if (estimate.maxFeePerGas <= cap && estimate.maxPriorityFeePerGas <= estimate.maxFeePerGas)
          assert.deepEqual(first, { ...estimate });
      }),
    );
  });

  it("known answers: 20% over 10 and 2 gwei, the estimate when higher, none at the cap", () => {
    const rules = { bumpPercent: 20, maxFeePerGasCap: 100n * gwei };
    const highest = { maxFeePerGas: 10n * gwei, maxPriorityFeePerGas: 2n * gwei };
    const low = { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n };
    assert.deepEqual(replacementFees(highest, low, rules), {
      maxFeePerGas: 12n * gwei,
      maxPriorityFeePerGas: 2_400_000_000n,
    });
    assert.deepEqual(
      replacementFees(highest, { maxFeePerGas: 50n * gwei, maxPriorityFeePerGas: 3n * gwei }, rules),
      {
        maxFeePerGas: 50n * gwei,
        maxPriorityFeePerGas: 3n * gwei,
      },
    );
    assert.deepEqual(
      replacementFees(highest, { maxFeePerGas: 500n * gwei, maxPriorityFeePerGas: 3n * gwei }, rules),
      {
        maxFeePerGas: 100n * gwei,
        maxPriorityFeePerGas: 3n * gwei,
      },
    );
    assert.equal(replacementFees({ ...highest, maxFeePerGas: 90n * gwei }, low, rules), undefined);
    // A fee of zero is raised too (a pool wants strictly more).
    assert.equal(bumped(0n, 10), 1n);
    assert.equal(bumped(7n, 10), 8n);
  });

  it("reads the fees back from a signed transaction's bytes, and takes each field's highest", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const signed = await account.signTransaction({
      type: "eip1559",
      chainId: 31337,
      nonce: 3,
      to: account.address,
      value: 0n,
      gas: 60_000n,
      maxFeePerGas: 7n * gwei,
      maxPriorityFeePerGas: 2n * gwei,
    });
    assert.deepEqual(feesOf(signed), { maxFeePerGas: 7n * gwei, maxPriorityFeePerGas: 2n * gwei });
    assert.deepEqual(
      highestFees([
        { maxFeePerGas: 7n, maxPriorityFeePerGas: 1n },
        { maxFeePerGas: 5n, maxPriorityFeePerGas: 3n },
      ]),
      { maxFeePerGas: 7n, maxPriorityFeePerGas: 3n },
    );
  });
});
