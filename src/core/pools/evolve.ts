// evolve for the pool models: applies the pool events (pools/events.ts) and the pool terms of
// MarketCreated, in place, asserting what decide promised. A failed assertion is a bug: it throws.

import type { MarketCreatedEvent } from "../events.js";
import { accountFor, marketOf, outcomeOf, positionFor } from "../evolve-lookups.js";
import type { ExchangeState } from "../state.js";
import { priceUnitsPerUnit } from "../units.js";
import { applyBalanceDelta } from "../wallet/ledger.js";
import { recordBuy, recordSell } from "../wallet/positions.js";
import { initialFunding } from "./amm/fpmm.js";
import type { AmmPoolFundedEvent, PoolEvent, PoolSettledEvent, PoolTradeExecutedEvent } from "./events.js";
import type { AmmTerms, PoolTerms } from "./models.js";

/** The AmmPoolFunded events that follow an AMM market's MarketCreated: one per outcome. */
export function poolFundingEvents(
  created: MarketCreatedEvent,
  terms: PoolTerms | null,
): AmmPoolFundedEvent[] {
  if (terms === null || terms.modelType !== "AMM") return [];
  const funding = initialFunding(terms.liquidity, terms.weights);
  return created.outcomes.map((outcome) => ({
    type: "AmmPoolFunded",
    marketId: created.marketId,
    outcomeId: outcome.outcomeId,
    amount: terms.liquidity,
    balances: funding.balances,
    funderShares: funding.funderShares,
    atMs: created.createdAtMs,
  }));
}

/** Keeps a new market's pool terms, and opens its empty parimutuel pools. */
export function applyPoolTerms(state: ExchangeState, event: MarketCreatedEvent): void {
  const terms = event.poolTerms ?? null;
  if (terms === null) {
    if (event.modelType !== "orderbook") throw new Error("pools: a pool market without terms");
    return;
  }
  if (terms.modelType !== event.modelType) throw new Error("pools: terms of another model");
  state.pools.terms.set(event.marketId, terms);
  if (terms.modelType !== "parimutuel") return;
  for (const outcome of event.outcomes) {
    state.pools.parimutuelPools.set(outcome.outcomeId, {
      marketId: event.marketId,
      outcomeId: outcome.outcomeId,
      stakes: [0n, 0n],
      settlement: null,
    });
  }
}

export function evolvePool(state: ExchangeState, event: PoolEvent): void {
  switch (event.type) {
    case "AmmPoolFunded":
      applyFunded(state, event);
      break;
    case "PoolTradeExecuted":
      applyPoolTrade(state, event);
      break;
    case "PoolSettled":
      applyPoolSettled(state, event);
      break;
    default: {
      const unreachable: never = event;
      throw new Error(`pools: unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

function applyFunded(state: ExchangeState, event: AmmPoolFundedEvent): void {
  const terms = state.pools.terms.get(event.marketId) as AmmTerms | undefined;
  if (terms?.modelType !== "AMM" || state.pools.ammPools.has(event.outcomeId))
    throw new Error(`pools: funding outcome ${event.outcomeId} twice or of a non-AMM market`);
  const outcome = outcomeOf(state, event.outcomeId);
  outcome.collateral += event.amount;
  state.pools.ammPools.set(event.outcomeId, {
    marketId: event.marketId,
    outcomeId: event.outcomeId,
    balances: event.balances,
    funderShares: event.funderShares,
    funded: event.amount,
    returned: 0n,
  });
}

function applyPoolTrade(state: ExchangeState, event: PoolTradeExecutedEvent): void {
  const { counters } = state;
  if (event.tradeId !== counters.nextTradeId) throw new Error("pools: trade id out of sequence");
  counters.nextTradeId = event.tradeId + 1;
  const account = accountFor(state, event.userId);
  applyBalanceDelta(account, event.availableDelta, 0n);
  const position = positionFor(state, account, event.positionId, event.optionId);
  if (event.side === "BUY") recordBuy(position, event.shares, event.amount, event.fee);
  else recordSell(position, event.shares, false, event.amount, event.fee);
  const outcome = outcomeOf(state, event.outcomeId);
  outcome.collateral += event.collateralDelta;
  if (outcome.collateral < 0n) throw new Error("pools: negative collateral");
  if (event.modelType === "AMM") {
    const pool = state.pools.ammPools.get(event.outcomeId)!;
    if (event.poolAfter[0] * event.poolAfter[1] < pool.balances[0] * pool.balances[1])
      throw new Error(`pools: the product of pool ${event.outcomeId} decreased`);
    pool.balances = event.poolAfter;
  } else {
    state.pools.parimutuelPools.get(event.outcomeId)!.stakes = event.poolAfter;
  }
  if (event.fee !== 0n) {
    marketOf(state, event.marketId).feeIncome += event.fee;
    state.totals.feeIncome += event.fee;
  }
  outcome.lastTradeYesPriceUnits = yesPriceUnitsOf(event);
}

/**
 * The Yes option's price after a pool trade, in price units (0.0001), for what reads an outcome's
 * last trade price: the live market-price channel, the price sampler, /orderbook/price. AMM: the
 * marginal price no / (yes + no); parimutuel: Yes's share of the stakes. Kept within 1 to 9,999
 * units (0 means "no trade yet"). Doubles are exact enough for a 4-decimal display price and give
 * the same result on every replay.
 */
function yesPriceUnitsOf(event: PoolTradeExecutedEvent): number {
  const [first, second] = event.poolAfter;
  const yesShare =
    (event.modelType === "AMM" ? Number(second) : Number(first)) / (Number(first) + Number(second));
  return Math.min(priceUnitsPerUnit - 1, Math.max(1, Math.floor(yesShare * priceUnitsPerUnit)));
}

function applyPoolSettled(state: ExchangeState, event: PoolSettledEvent): void {
  const outcome = outcomeOf(state, event.outcomeId);
  const toFees = event.fee + event.dust;
  outcome.collateral -= event.returnedToPlatform + toFees;
  if (outcome.collateral < 0n || event.returnedToPlatform < 0n || event.dust < 0n)
    throw new Error(`pools: settling outcome ${event.outcomeId} takes more than it holds`);
  if (event.modelType === "AMM") {
    state.pools.ammPools.get(event.outcomeId)!.returned += event.returnedToPlatform;
    return;
  }
  const pool = state.pools.parimutuelPools.get(event.outcomeId)!;
  pool.settlement = {
    fee: event.fee,
    dust: event.dust,
    distributable: event.distributable,
    winningStake: event.winningStake,
  };
  if (toFees !== 0n) {
    marketOf(state, event.marketId).feeIncome += toFees;
    state.totals.feeIncome += toFees;
  }
}
