// ConvertPositions (DESIGN §10, POST /ordering/convert): in an open exclusive market, `shares` No
// of each of k listed outcomes become `shares` Yes of every other outcome plus shares × (k − 1)
// USDT. Whichever outcome wins, the user is paid the same before and after: if a listed outcome
// wins, its No paid 0 and the other k − 1 No paid shares each, which is the USDT now; if an
// unlisted one wins, all k No paid shares each, which is the USDT now plus the winner's new Yes.
// How the market stays funded: exclusive-market.ts.
//
// Cost basis: the shares are exchanged, not sold at a price, so the cost the burned No shares
// release carries over: the USDT is a return of it and the rest becomes the new Yes shares' cost.
// Only when the USDT is more than the whole cost released is the excess realised PnL.

import type { ConvertPositionsCommand } from "../commands.js";
import type { CommandContext, Decision } from "../decider.js";
import { type RejectionCode, reject } from "../errors.js";
import type { ExchangeEvent } from "../events.js";
import { marketOf, outcomeOf, positionFor } from "../evolve-lookups.js";
import { isId } from "../ids.js";
import { orderSharesMax } from "../limits.js";
import { isWithinTradingWindow } from "../market.js";
import type { ExchangeState } from "../state.js";
import { atomsPerLot } from "../units.js";
import { applyBalanceDelta } from "../wallet/ledger.js";
import { costReleasedBySale, type Position, recordBuy, recordSell } from "../wallet/positions.js";
import type { BurnedNoLeg, MintedYesLeg, PositionsConvertedEvent } from "./events.js";

/** The most No shares of each outcome one conversion takes: the largest order, 1,000,000 shares. */
export const conversionSharesMax = orderSharesMax;

function invalid(message: string): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

function refuse(code: RejectionCode): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject(code) };
}

/** What is wrong with the request's own shape: the user, the shares, the list of outcomes. */
function conversionShapeRejection(command: ConvertPositionsCommand): Decision<ExchangeEvent> | undefined {
  const { userId, shares, outcomeIds } = command;
  if (!isId(userId)) return invalid("userId must be a positive integer");
  if (typeof shares !== "bigint" || shares <= 0n) return invalid("shares must be positive");
  if (shares % atomsPerLot !== 0n) return refuse("SHARES_NOT_ON_STEP");
  if (shares > conversionSharesMax) return invalid("shares must be at most 1000000");
  if (
    !Array.isArray(outcomeIds) ||
    outcomeIds.length === 0 ||
    !outcomeIds.every(isId) ||
    new Set(outcomeIds).size !== outcomeIds.length
  ) {
    return invalid("outcomeIds must list distinct outcome ids");
  }
  return undefined;
}

export function decideConvertPositions(
  state: ExchangeState,
  command: ConvertPositionsCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const { userId, shares, outcomeIds } = command;
  // The request's shape first, then the market, then the user's holdings.
  const shapeRejection = conversionShapeRejection(command);
  if (shapeRejection !== undefined) return shapeRejection;
  const market = isId(command.marketId) ? state.markets.get(command.marketId) : undefined;
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  if (!state.exclusiveMarkets.has(market.marketId)) return refuse("MARKET_NOT_EXCLUSIVE");
  if (market.status !== "open" || !isWithinTradingWindow(market, context.nowMs))
    return refuse("MARKET_NOT_OPEN");
  const outcomeCount = market.outcomeIds.length;
  const listed = new Set(outcomeIds);
  if (listed.size >= outcomeCount || !outcomeIds.every((outcomeId) => market.outcomeIds.includes(outcomeId)))
    return invalid(`outcomeIds must list 1 to ${outcomeCount - 1} outcomes of the market`);

  const account = state.accounts.get(userId);
  const burnedPositions: Position[] = [];
  for (const outcomeId of market.outcomeIds) {
    if (!listed.has(outcomeId)) continue;
    const position = account?.positions.get(state.outcomes.get(outcomeId)!.optionIds[1]);
    // Only free shares convert: those in resting SELL orders stay where they are.
    if (position === undefined || position.shares < shares) return refuse("INSUFFICIENT_SHARES");
    burnedPositions.push(position);
  }

  const collateral = shares * BigInt(listed.size - 1);
  const released = burnedPositions.map((position) => costReleasedBySale(position, shares));
  const releasedTotal = released.reduce((sum, cost) => sum + cost, 0n);
  const gain = collateral > releasedTotal ? collateral - releasedTotal : 0n;
  const burned: BurnedNoLeg[] = burnedPositions.map((position, index) => ({
    outcomeId: position.outcomeId,
    optionId: position.optionId,
    positionId: position.positionId,
    proceeds: released[index]! + (index === 0 ? gain : 0n),
  }));

  const unlisted = market.outcomeIds.filter((outcomeId) => !listed.has(outcomeId));
  const carriedCost = releasedTotal + gain - collateral;
  const costEach = carriedCost / BigInt(unlisted.length);
  let nextPositionId = state.counters.nextPositionId;
  const minted: MintedYesLeg[] = unlisted.map((outcomeId, index) => {
    const yesId = state.outcomes.get(outcomeId)!.optionIds[0];
    const existing = account?.positions.get(yesId);
    return {
      outcomeId,
      optionId: yesId,
      positionId: existing?.positionId ?? nextPositionId++,
      // The first leg takes the division's remainder, so the legs carry the cost exactly.
      cost: index === 0 ? carriedCost - costEach * BigInt(unlisted.length - 1) : costEach,
    };
  });
  const converted: PositionsConvertedEvent = {
    type: "PositionsConverted",
    marketId: market.marketId,
    userId,
    shares,
    collateral,
    burned,
    minted,
    transactionId: String(context.sequence),
    atMs: context.nowMs,
  };
  return { ok: true, events: [converted] };
}

/** Applies a conversion; asserts what decide promised. */
export function evolvePositionsConverted(state: ExchangeState, event: PositionsConvertedEvent): void {
  const market = marketOf(state, event.marketId);
  const exclusive = state.exclusiveMarkets.get(market.marketId);
  const account = state.accounts.get(event.userId);
  if (exclusive === undefined || account === undefined) throw new Error("convert: not an exclusive market");
  if (event.burned.length + event.minted.length !== market.outcomeIds.length || event.minted.length === 0)
    throw new Error("convert: the legs must cover every outcome once");
  if (event.collateral !== event.shares * BigInt(event.burned.length - 1))
    throw new Error("convert: the USDT paid must be shares × (listed − 1)");
  for (const leg of event.burned) {
    const position = account.positions.get(leg.optionId);
    if (position === undefined || position.positionId !== leg.positionId)
      throw new Error(`convert: no position ${leg.positionId}`);
    recordSell(position, event.shares, false, leg.proceeds, 0n);
  }
  for (const leg of event.minted) {
    recordBuy(positionFor(state, account, leg.positionId, leg.optionId), event.shares, leg.cost, 0n);
    outcomeOf(state, leg.outcomeId).collateral += event.shares;
  }
  applyBalanceDelta(account, event.collateral, 0n);
  exclusive.retiredNoShares += event.shares;
  exclusive.conversionAdvance += event.shares * BigInt(market.outcomeIds.length - 1);
}
