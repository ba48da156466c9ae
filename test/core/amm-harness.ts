// Helpers for the AMM and parimutuel tests, over the given/when/then Exchange of exchange-harness.ts.

import assert from "node:assert/strict";
import {
  type createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  marketOrderCommand,
} from "../../src/core/exchange.js";
import type { PoolTermsInput } from "../../src/core/pools/models.js";
import { type BinaryMarket, type Exchange, eventsOfType } from "./exchange-harness.js";

/** Creates and opens a one-outcome market of the model with these pool terms. */
export function openPoolMarket(
  exchange: Exchange,
  modelType: "AMM" | "parimutuel",
  pool: PoolTermsInput = {},
  fields: Partial<Parameters<typeof createMarketCommand>[0]> = {},
): BinaryMarket {
  return exchange.openMarket({ modelType, pool, ...fields });
}

/** Closes the market, proposes `winningOptionId` and has the operator finalize it at once. */
export function settle(exchange: Exchange, market: BinaryMarket, winningOptionId: number): ExchangeEvent[] {
  exchange.accept({ type: "CloseMarket", marketId: market.marketId });
  exchange.accept({
    type: "ResolveMarket",
    marketId: market.marketId,
    proposerId: null,
    winners: [{ outcomeId: market.outcomeId, winningOptionId }],
    challengeWindowMs: null,
    challengeBond: null,
  });
  return exchange.accept({ type: "FinalizeMarket", marketId: market.marketId, winners: null });
}

/** Claims every position the user has in the market; returns what was paid (0 when nothing was due). */
export function claimAll(exchange: Exchange, userId: number, market: BinaryMarket): bigint {
  const decided = exchange.run({ type: "ClaimMarket", userId, marketId: market.marketId });
  if (!decided.ok) {
    assert.ok(["NOTHING_TO_CLAIM", "ALREADY_CLAIMED"].includes(decided.code), decided.code);
    return 0n;
  }
  return eventsOfType(decided.events, "PositionClaimed").reduce((sum, event) => sum + event.amount, 0n);
}

export function available(exchange: Exchange, userId: number): bigint {
  return exchange.state.accounts.get(userId)?.available ?? 0n;
}

/** A MARKET SELL of an exact number of share atoms (AMM holdings are not whole lots). */
export function sellAtoms(
  userId: number,
  market: BinaryMarket,
  optionId: number,
  shares: bigint,
): ExchangeCommand {
  return marketOrderCommand({
    userId,
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId,
    side: "SELL",
    shares,
  });
}

/** A MARKET BUY of an exact amount of atoms. */
export function buyAtoms(
  userId: number,
  market: BinaryMarket,
  optionId: number,
  amount: bigint,
): ExchangeCommand {
  return marketOrderCommand({
    userId,
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId,
    side: "BUY",
    amount,
  });
}
