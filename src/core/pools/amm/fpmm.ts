// The fixed-product market maker of one binary outcome (the Gnosis FPMM family), in exact bigint
// atoms. The pool holds a balance of each option's shares; a complete set (one share of each
// option) is backed by exactly 1 USDT of the outcome's collateral.
//
// BUY with an investment x (fee already taken): the pool mints x complete sets from the cash,
// then hands out shares of the bought option until the product of its balances is back to k.
// SELL of s shares: the pool takes the shares, burns r complete sets and pays r out, the largest
// r that keeps the product at least k. Every rounding is in the pool's favour (the user receives
// rounded down, the pool keeps rounded up), so the product never decreases: Π after ≥ Π before.
//
// Marginal price of option i: the other balance over the sum of both (Gnosis: price_i ∝ 1/b_i).

export type OptionIndex = 0 | 1;
export type PoolBalances = readonly [bigint, bigint];

/** Atoms in 1 USDT, in one share, and in a probability of 1 (prices are atoms of 1 USDT). */
export const atomsPerOne = 100_000_000n;
const basisPointsPerOne = 10_000n;
/** How far from a bound a price computed in doubles must be for the double to be trusted. */
const floatMarginOfPrice = 1e-9;

function other(index: OptionIndex): OptionIndex {
  return index === 0 ? 1 : 0;
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

function withIndex(index: OptionIndex, own: bigint, otherBalance: bigint): PoolBalances {
  return index === 0 ? [own, otherBalance] : [otherBalance, own];
}

export interface InitialFunding {
  /** What the pool trades with: prices equal the weights. */
  readonly balances: PoolBalances;
  /** The rest of the `liquidity` complete sets, held for the funder outside the pool. */
  readonly funderShares: PoolBalances;
}

/**
 * Splits `liquidity` complete sets so that the marginal prices equal the weights (Gnosis's
 * distribution hint): balance_i = liquidity × w_min / w_i, the option with the smallest weight
 * keeps all `liquidity` shares, the rest go to the funder. Weights are atoms summing to 1.
 */
export function initialFunding(liquidity: bigint, weights: PoolBalances): InitialFunding {
  const [weightYes, weightNo] = weights;
  // biome-ignore lint/complexity/useMathMinMax: Math.min does not take bigints
  const weightMin = weightYes < weightNo ? weightYes : weightNo;
  const balances: PoolBalances = [(liquidity * weightMin) / weightYes, (liquidity * weightMin) / weightNo];
  return { balances, funderShares: [liquidity - balances[0], liquidity - balances[1]] };
}

export interface BuyQuote {
  readonly shares: bigint;
  readonly balancesAfter: PoolBalances;
}

/** Shares of option `index` that an investment of `invest` atoms (fee excluded) buys. */
export function quoteBuy(balances: PoolBalances, index: OptionIndex, invest: bigint): BuyQuote {
  const own = balances[index];
  const otherAfter = balances[other(index)] + invest;
  // The bought option's balance after the trade, rounded up: the pool keeps the fraction.
  const ownAfter = ceilDiv(own * balances[other(index)], otherAfter);
  return { shares: own + invest - ownAfter, balancesAfter: withIndex(index, ownAfter, otherAfter) };
}

export interface SellQuote {
  /** Cash the burnt complete sets release, before the sell fee. */
  readonly returned: bigint;
  readonly balancesAfter: PoolBalances;
}

/**
 * What selling `shares` of option `index` returns: the largest r with
 * (own + shares − r)(other − r) ≥ own × other, the smaller root of a quadratic, in integers.
 */
export function quoteSell(balances: PoolBalances, index: OptionIndex, shares: bigint): SellQuote {
  const product = balances[0] * balances[1];
  const own = balances[index] + shares;
  const otherBalance = balances[other(index)];
  // r = (sum − √(sum² − 4·shares·other)) / 2 = 2·shares·other / (sum + √(…)). The second form has
  // no cancellation, so a double gives r to within an atom or so; the exact bigint test of the
  // product then moves it to the largest r that keeps k (a bigint square root cost ten times more).
  const sharesNumber = Number(shares);
  const otherNumber = Number(otherBalance);
  const sumNumber = Number(own) + otherNumber;
  const estimate =
    (2 * sharesNumber * otherNumber) /
    (sumNumber + Math.sqrt(sumNumber * sumNumber - 4 * sharesNumber * otherNumber));
  let returned = Number.isFinite(estimate) && estimate > 0 ? BigInt(Math.floor(estimate)) : 0n;
  while (returned > 0n && !keepsProduct(own, otherBalance, returned, product)) returned--;
  while (keepsProduct(own, otherBalance, returned + 1n, product)) returned++;
  return { returned, balancesAfter: withIndex(index, own - returned, otherBalance - returned) };
}

/** True when burning `returned` complete sets leaves the product at least `product`. A plain
 * function, not a closure: tsx's keepNames would rename a closure on every call. */
function keepsProduct(own: bigint, otherBalance: bigint, returned: bigint, product: bigint): boolean {
  return returned < otherBalance && (own - returned) * (otherBalance - returned) >= product;
}

/** ⌈√n⌉ for n ≥ 0: a float estimate, one Newton step, then exact correction. */
export function ceilSqrt(n: bigint): bigint {
  if (n <= 0n) return 0n;
  let root = BigInt(Math.floor(Math.sqrt(Number(n)))) || 1n;
  root = (root + n / root) >> 1n;
  while (root * root > n) root--;
  while ((root + 1n) * (root + 1n) <= n) root++;
  return root * root === n ? root : root + 1n;
}

/** The marginal price of option `index`, atoms of 1 USDT, rounded down. */
export function marginalPrice(balances: PoolBalances, index: OptionIndex): bigint {
  return (balances[other(index)] * atomsPerOne) / (balances[0] + balances[1]);
}

/** What the next share costs with the buy fee taken first: price / (1 − fee), rounded up. */
export function marginalBuyPrice(balances: PoolBalances, index: OptionIndex, buyFeeBps: number): bigint {
  const keptBps = basisPointsPerOne - BigInt(buyFeeBps);
  return ceilDiv(
    balances[other(index)] * atomsPerOne * basisPointsPerOne,
    (balances[0] + balances[1]) * keptBps,
  );
}

/** What the next share sold pays after the sell fee: price × (1 − fee), rounded down. */
export function marginalSellPrice(balances: PoolBalances, index: OptionIndex, sellFeeBps: number): bigint {
  const keptBps = basisPointsPerOne - BigInt(sellFeeBps);
  return (balances[other(index)] * atomsPerOne * keptBps) / ((balances[0] + balances[1]) * basisPointsPerOne);
}

/**
 * True when option `index`'s marginal price moved by more than `bound` (atoms of 1 USDT) in the
 * direction of the trade: up for a BUY, down for a SELL. Exact: the fractions are cross-multiplied.
 */
export function priceMovedBeyond(
  before: PoolBalances,
  after: PoolBalances,
  index: OptionIndex,
  isBuy: boolean,
  bound: bigint,
): boolean {
  // Doubles decide every case but a hair's breadth from the bound (prices are below 1, so their
  // error is near 1e-16); only those take the exact bigint comparison.
  const priceBefore = Number(before[other(index)]) / (Number(before[0]) + Number(before[1]));
  const priceAfter = Number(after[other(index)]) / (Number(after[0]) + Number(after[1]));
  const moveNumber = isBuy ? priceAfter - priceBefore : priceBefore - priceAfter;
  const boundNumber = Number(bound) / 1e8;
  if (moveNumber < boundNumber - floatMarginOfPrice) return false;
  if (moveNumber > boundNumber + floatMarginOfPrice) return true;
  const sumBefore = before[0] + before[1];
  const sumAfter = after[0] + after[1];
  // price = other / sum; move = after − before (BUY) or before − after (SELL), over sumBefore·sumAfter.
  const afterTimesBefore = after[other(index)] * sumBefore;
  const beforeTimesAfter = before[other(index)] * sumAfter;
  const move = isBuy ? afterTimesBefore - beforeTimesAfter : beforeTimesAfter - afterTimesBefore;
  return move * atomsPerOne > bound * sumBefore * sumAfter;
}

/** The fee on `amount` at `bps`, rounded down (DESIGN §6: fees round down to the atom). */
export function feeOf(amount: bigint, bps: number): bigint {
  return bps === 0 ? 0n : (amount * BigInt(bps)) / basisPointsPerOne;
}
