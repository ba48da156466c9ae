// Claims (DESIGN §3 Positions): once a market is settled or void, the owner of a position claims
// its payout (settlement.ts) into the available balance, exactly, once. ClaimPosition names one
// position (the current interface's /ordering/claim); ClaimMarket claims every position a user
// holds in one market (the legacy interface's claim by marketId). Each command's claims share one
// transactionId, the command's journal sequence: unique, and the same on every replay.

import type { ClaimMarketCommand, ClaimPositionCommand } from "../commands.js";
import type { CommandContext, Decision } from "../decider.js";
import { type RejectionCode, reject } from "../errors.js";
import type { ExchangeEvent, PositionClaimedEvent } from "../events.js";
import { isId } from "../ids.js";
import type { ExchangeState } from "../state.js";
import type { Position } from "../wallet/positions.js";
import { isFinished, payoutAtoms } from "./settlement.js";

function refuse(code: RejectionCode): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject(code) };
}

/** The user's position with this id, or undefined (another user's position is not theirs to see). */
export function positionOfUser(
  state: ExchangeState,
  userId: number,
  positionId: number,
): Position | undefined {
  const account = state.accounts.get(userId);
  if (account === undefined || !isId(positionId)) return undefined;
  for (const position of account.positions.values()) if (position.positionId === positionId) return position;
  return undefined;
}

function claimed(position: Position, amount: bigint, context: CommandContext): PositionClaimedEvent {
  return {
    type: "PositionClaimed",
    positionId: position.positionId,
    userId: position.userId,
    marketId: position.marketId,
    outcomeId: position.outcomeId,
    optionId: position.optionId,
    shares: position.shares + position.frozenShares,
    amount,
    transactionId: String(context.sequence),
    atMs: context.nowMs,
  };
}

export function decideClaimPosition(
  state: ExchangeState,
  command: ClaimPositionCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const position = positionOfUser(state, command.userId, command.positionId);
  if (position === undefined) return refuse("POSITION_NOT_FOUND");
  const market = state.markets.get(position.marketId)!;
  if (!isFinished(market)) return refuse("MARKET_NOT_SETTLED");
  if (state.claims.has(position.positionId)) return refuse("ALREADY_CLAIMED");
  const amount = payoutAtoms(state, position);
  if (amount === 0n) return refuse("NOTHING_TO_CLAIM");
  return { ok: true, events: [claimed(position, amount, context)] };
}

export function decideClaimMarket(
  state: ExchangeState,
  command: ClaimMarketCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  if (!isFinished(market)) return refuse("MARKET_NOT_SETTLED");
  const account = state.accounts.get(command.userId);
  const events: ExchangeEvent[] = [];
  let alreadyClaimed = false;
  const positions = [...(account?.positions.values() ?? [])]
    .filter((position) => position.marketId === market.marketId)
    .sort((a, b) => a.positionId - b.positionId);
  for (const position of positions) {
    if (state.claims.has(position.positionId)) {
      alreadyClaimed = true;
      continue;
    }
    const amount = payoutAtoms(state, position);
    if (amount > 0n) events.push(claimed(position, amount, context));
  }
  // Nothing left: "already claimed" when something was claimed before, else nothing ever was due.
  if (events.length === 0) return refuse(alreadyClaimed ? "ALREADY_CLAIMED" : "NOTHING_TO_CLAIM");
  return { ok: true, events };
}

/** Applies a claim: the payout leaves the outcome's collateral for the user's available balance. */
export function evolveClaim(state: ExchangeState, event: PositionClaimedEvent): void {
  if (state.claims.has(event.positionId))
    throw new Error(`claims: position ${event.positionId} claimed twice`);
  const outcome = state.outcomes.get(event.outcomeId);
  const account = state.accounts.get(event.userId);
  if (outcome === undefined || account === undefined) throw new Error("claims: unknown outcome or user");
  outcome.collateral -= event.amount;
  if (outcome.collateral < 0n) throw new Error(`claims: outcome ${event.outcomeId} collateral below zero`);
  account.available += event.amount;
  state.claims.set(event.positionId, event.amount);
}
