// What must hold of the pools after every command (invariants.ts calls these).
// Money: the platform's AMM funding entered from outside the users' deposits, so the
// conservation equation counts it: deposits − withdrawals + platform funding (net of what came
// back) = balances + collateral + fees. Shares: every share of an AMM option is held by a user,
// the pool or the funder, and there are exactly as many of each option as complete sets in the
// collateral; every parimutuel stake is in the pool, and the pool is the collateral.

import type { Outcome } from "../market.js";
import type { ExchangeState } from "../state.js";
import { initialFunding } from "./amm/fpmm.js";

/** Atoms the platform has put into AMM pools, less what it took back at settlement and void. */
export function platformPoolFundingNet(state: ExchangeState): bigint {
  let net = 0n;
  for (const pool of state.pools.ammPools.values()) net += pool.funded - pool.returned;
  return net;
}

/**
 * The pool checks of one outcome of an unfinished AMM or parimutuel market, given the shares
 * users hold per option id. Returns the problems.
 */
export function checkPoolOutcome(
  state: ExchangeState,
  outcome: Outcome,
  heldByOption: ReadonlyMap<number, bigint>,
): string[] {
  const problems: string[] = [];
  const terms = state.pools.terms.get(outcome.marketId);
  const held = outcome.optionIds.map((optionId) => heldByOption.get(optionId) ?? 0n);
  const name = `outcome ${outcome.outcomeId}`;
  if (terms === undefined) return [`${name}: a pool market without terms`];
  if (terms.modelType === "AMM") {
    const pool = state.pools.ammPools.get(outcome.outcomeId);
    if (pool === undefined) return [`${name}: an AMM outcome without a pool`];
    if (pool.returned !== 0n) problems.push(`${name}: funding returned before the market finished`);
    for (const index of [0, 1] as const) {
      const total = held[index]! + pool.balances[index] + pool.funderShares[index];
      if (total !== outcome.collateral)
        problems.push(`${name}: option ${index} has ${total} shares, collateral ${outcome.collateral}`);
      if (pool.balances[index] <= 0n) problems.push(`${name}: empty pool balance`);
    }
    // The product never falls below what the funding made it (rounding only ever raises it).
    const initial = initialFunding(terms.liquidity, terms.weights).balances;
    if (pool.balances[0] * pool.balances[1] < initial[0] * initial[1])
      problems.push(`${name}: pool product below its initial value`);
    return problems;
  }
  const pool = state.pools.parimutuelPools.get(outcome.outcomeId);
  if (pool === undefined) return [`${name}: a parimutuel outcome without a pool`];
  if (pool.stakes[0] !== held[0] || pool.stakes[1] !== held[1])
    problems.push(`${name}: stakes ${pool.stakes.join("/")} differ from positions ${held.join("/")}`);
  if (pool.stakes[0] + pool.stakes[1] !== outcome.collateral)
    problems.push(`${name}: pool ${pool.stakes[0] + pool.stakes[1]} ≠ collateral ${outcome.collateral}`);
  if (pool.settlement !== null) problems.push(`${name}: settled before its market`);
  return problems;
}
