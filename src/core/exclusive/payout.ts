// What a share of an exclusive market pays once it is finished. Settled: as in any order-book market,
// the winning option pays 1 (the one winning outcome's Yes and every other outcome's No). Voided:
// each share pays what it would pay on average if every outcome were equally likely to win, a Yes
// share 1/n and a No share (n − 1)/n, rounded down to the atom. A Yes+No pair still pays about 1,
// and for two outcomes this is the 0.5 of any other market. The usual 0.5 a share cannot hold here:
// a conversion turns k No shares into n − k Yes shares and k − 1 USDT, worth k/2 before and
// (n − k)/2 + k − 1 after, so for n > 2 every conversion would raise what the void pays out beyond
// the collateral. Under the average every conversion keeps a user's payout, as under each winner
// (docs/decisions.md, "Exclusive (neg-risk) events").

import type { OptionIndex } from "../option-index.js";

/** A void's payout of `held` share atoms of one option of an exclusive market with `outcomeCount` outcomes. */
export function exclusiveVoidPayoutAtoms(
  held: bigint,
  optionIndex: OptionIndex,
  outcomeCount: number,
): bigint {
  const outcomes = BigInt(outcomeCount);
  return optionIndex === 0 ? held / outcomes : (held * (outcomes - 1n)) / outcomes;
}
