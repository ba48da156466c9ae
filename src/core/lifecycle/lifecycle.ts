// The end of a market's life (DESIGN §3): closed → resolving → settled, or void from any state
// before settled. The operator or the market's creator proposes the winning option of every
// outcome (ResolveMarket); a challenge window runs, during which any user may post the bond and
// challenge (ChallengeResolution); the operator's FinalizeMarket settles at once (ending any window
// early, with corrected winners if need be); without it the scheduler settles when the window ends
// unchallenged (SettleMarket). A challenged market waits for the operator.
//
// The bond: frozen from the challenger's available balance when the challenge is posted; returned
// when the final winners differ from the proposal (the challenge was right) or when the market is
// voided; otherwise forfeited to the market's fee income when the market settles.
//
// Void: resting orders are cancelled (funds and shares unfrozen), a held bond comes back, and every
// share of every option is then claimable at half a USDT from the outcome's collateral. A Yes+No
// pair was minted for exactly 1 USDT of collateral, so 0.5 per share pays out the collateral exactly.
// An exclusive market (exclusive/) is resolved with exactly one winning outcome, voids by its own
// payout, and its finish (settled or void) ends with ExclusiveMarketFinished.

import { releaseEvent } from "../book/place-order.js";
import type {
  ChallengeResolutionCommand,
  FinalizeMarketCommand,
  ResolveMarketCommand,
  SettleMarketCommand,
  VoidMarketCommand,
  WinnerChoice,
} from "../commands.js";
import type { CommandContext, Decision } from "../decider.js";
import { type RejectionCode, reject } from "../errors.js";
import type {
  ChallengeBondForfeitedEvent,
  ChallengeBondReturnedEvent,
  ExchangeEvent,
  LifecycleEvent,
  ResolutionChallengedEvent,
} from "../events.js";
import {
  exclusiveFinishEvents,
  exclusiveWinnersMessage,
  isExclusiveResult,
} from "../exclusive/settlement.js";
import { isId } from "../ids.js";
import type { Market } from "../market.js";
import { poolSettlementEvents } from "../pools/settlement.js";
import type { ExchangeState } from "../state.js";
import { freezeFunds, newAccount, releaseFrozen } from "../wallet/ledger.js";
import type { MarketResolution, WinningOption } from "./resolution.js";

/** How long a proposed resolution may be challenged unless ResolveMarket says otherwise: 24 hours. */
export const defaultChallengeWindowMs = 24 * 60 * 60 * 1_000;
/** The shortest window a resolution may have: one second (tests and fast markets). */
export const challengeWindowMsMin = 1_000;
/** The longest: 30 days. */
export const challengeWindowMsMax = 30 * 24 * 60 * 60 * 1_000;
/** The bond a challenger posts unless ResolveMarket says otherwise: 10 USDT, in atoms. */
export const defaultChallengeBondAtoms = 1_000_000_000n;
/** The largest bond a resolution may ask: 1,000,000 USDT, in atoms. */
export const challengeBondAtomsMax = 100_000_000_000_000n;
/** A challenge's reason, as the legacy interface limits it. */
export const challengeReasonLengthMax = 1_000;

type Lifecycle = Decision<ExchangeEvent>;

function refuse(code: RejectionCode): Lifecycle {
  return { ok: false, rejection: reject(code) };
}

function invalid(message: string): Lifecycle {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

/**
 * Checks that `choices` name every outcome of the market exactly once, each with one of its own
 * options, and returns them in the market's outcome order.
 */
function winnersFor(
  state: ExchangeState,
  market: Market,
  choices: readonly WinnerChoice[],
): { ok: true; winners: WinningOption[] } | { ok: false; decision: Lifecycle } {
  if (!Array.isArray(choices) || choices.length !== market.outcomeIds.length) {
    return { ok: false, decision: invalid("winners must name every outcome of the market once") };
  }
  const byOutcome = new Map<number, number>();
  for (const choice of choices) {
    const outcome = isId(choice?.outcomeId) ? state.outcomes.get(choice.outcomeId) : undefined;
    if (outcome === undefined || outcome.marketId !== market.marketId)
      return { ok: false, decision: refuse("OUTCOME_NOT_FOUND") };
    if (!outcome.optionIds.includes(choice.winningOptionId))
      return { ok: false, decision: refuse("OPTION_NOT_FOUND") };
    if (byOutcome.has(outcome.outcomeId))
      return { ok: false, decision: invalid("winners must name every outcome of the market once") };
    byOutcome.set(outcome.outcomeId, choice.winningOptionId);
  }
  const winners = market.outcomeIds.map((outcomeId) => ({ outcomeId, optionId: byOutcome.get(outcomeId)! }));
  if (state.exclusiveMarkets.has(market.marketId) && !isExclusiveResult(state, winners))
    return { ok: false, decision: invalid(exclusiveWinnersMessage) };
  return { ok: true, winners };
}

function sameWinners(a: readonly WinningOption[], b: readonly WinningOption[]): boolean {
  return a.length === b.length && a.every((winner, index) => winner.optionId === b[index]!.optionId);
}

export function decideResolveMarket(
  state: ExchangeState,
  command: ResolveMarketCommand,
  context: CommandContext,
): Lifecycle {
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  // Only the operator (proposerId null) or the market's own creator may propose its result.
  if (command.proposerId !== null && (market.creatorId === null || command.proposerId !== market.creatorId))
    return refuse("NOT_MARKET_CREATOR");
  if (market.status !== "closed") return refuse("MARKET_STATUS_CONFLICT");
  const windowMs = command.challengeWindowMs ?? defaultChallengeWindowMs;
  if (!Number.isSafeInteger(windowMs) || windowMs < challengeWindowMsMin || windowMs > challengeWindowMsMax)
    return invalid(`challenge window must be ${challengeWindowMsMin} to ${challengeWindowMsMax} ms`);
  const bond = command.challengeBond ?? defaultChallengeBondAtoms;
  if (typeof bond !== "bigint" || bond <= 0n || bond > challengeBondAtomsMax)
    return invalid("challenge bond must be positive and at most 1,000,000 USDT");
  const chosen = winnersFor(state, market, command.winners);
  if (!chosen.ok) return chosen.decision;
  return {
    ok: true,
    events: [
      {
        type: "MarketResolved",
        marketId: market.marketId,
        proposerId: command.proposerId,
        winners: chosen.winners,
        challengeBond: bond,
        windowEndsAtMs: context.nowMs + windowMs,
        atMs: context.nowMs,
      },
    ],
  };
}

export function decideChallengeResolution(
  state: ExchangeState,
  command: ChallengeResolutionCommand,
  context: CommandContext,
): Lifecycle {
  if (!isId(command.userId)) return invalid("userId must be a positive integer");
  if (typeof command.reason !== "string" || command.reason.length > challengeReasonLengthMax)
    return invalid(`reason must be at most ${challengeReasonLengthMax} characters`);
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  const resolution = state.resolutions.get(market.marketId);
  // One challenge per market, and only while its window is open.
  if (
    market.status !== "resolving" ||
    resolution === undefined ||
    resolution.challenge !== null ||
    context.nowMs >= resolution.windowEndsAtMs
  ) {
    return refuse("MARKET_STATUS_CONFLICT");
  }
  const available = state.accounts.get(command.userId)?.available ?? 0n;
  if (available < resolution.challengeBond) return refuse("INSUFFICIENT_BALANCE");
  return {
    ok: true,
    events: [
      {
        type: "ResolutionChallenged",
        marketId: market.marketId,
        userId: command.userId,
        bond: resolution.challengeBond,
        reason: command.reason,
        atMs: context.nowMs,
      },
    ],
  };
}

export function decideFinalizeMarket(
  state: ExchangeState,
  command: FinalizeMarketCommand,
  context: CommandContext,
): Lifecycle {
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  const resolution = state.resolutions.get(market.marketId);
  if (market.status !== "resolving" || resolution === undefined) return refuse("MARKET_STATUS_CONFLICT");
  let winners = resolution.proposedWinners;
  if (command.winners !== null) {
    const chosen = winnersFor(state, market, command.winners);
    if (!chosen.ok) return chosen.decision;
    winners = chosen.winners;
  }
  const events: ExchangeEvent[] = [];
  const { challenge } = resolution;
  if (challenge?.bondHeld) {
    // The challenge was right when the operator's final result differs from the proposal.
    const upheld = !sameWinners(winners, resolution.proposedWinners);
    events.push({
      type: upheld ? "ChallengeBondReturned" : "ChallengeBondForfeited",
      marketId: market.marketId,
      userId: challenge.userId,
      amount: challenge.bond,
      atMs: context.nowMs,
    });
  }
  events.push(settled(market, winners, "OPERATOR", context.nowMs));
  events.push(...poolSettlementEvents(state, market, winners, context.nowMs));
  events.push(...exclusiveFinishEvents(state, market, winners, context.nowMs));
  return { ok: true, events };
}

export function decideSettleMarket(
  state: ExchangeState,
  command: SettleMarketCommand,
  context: CommandContext,
): Lifecycle {
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  // Time settles only an unchallenged resolution whose window has ended; anything else is the operator's.
  if (!isSettlementDue(state, market.marketId, context.nowMs)) return refuse("MARKET_STATUS_CONFLICT");
  const { proposedWinners } = resolutionOf(state, market.marketId);
  return {
    ok: true,
    events: [
      settled(market, proposedWinners, "WINDOW_ENDED", context.nowMs),
      ...poolSettlementEvents(state, market, proposedWinners, context.nowMs),
      ...exclusiveFinishEvents(state, market, proposedWinners, context.nowMs),
    ],
  };
}

function settled(
  market: Market,
  winners: readonly WinningOption[],
  by: "OPERATOR" | "WINDOW_ENDED",
  nowMs: number,
): ExchangeEvent {
  return { type: "MarketSettled", marketId: market.marketId, winners, by, atMs: nowMs };
}

export function decideVoidMarket(
  state: ExchangeState,
  command: VoidMarketCommand,
  context: CommandContext,
): Lifecycle {
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  if (market.status === "settled" || market.status === "void") return refuse("MARKET_STATUS_CONFLICT");
  const events: ExchangeEvent[] = [];
  // Resting orders leave the book first, their funds and shares unfrozen (bounded by ordersPerBookMax).
  for (const order of state.orders.values()) {
    if (order.marketId === market.marketId)
      events.push(releaseEvent("OrderCancelled", order, context.nowMs, "MARKET_VOID"));
  }
  const challenge = state.resolutions.get(market.marketId)?.challenge ?? null;
  if (challenge?.bondHeld) {
    events.push({
      type: "ChallengeBondReturned",
      marketId: market.marketId,
      userId: challenge.userId,
      amount: challenge.bond,
      atMs: context.nowMs,
    });
  }
  events.push({ type: "MarketVoided", marketId: market.marketId, atMs: context.nowMs });
  events.push(...poolSettlementEvents(state, market, null, context.nowMs));
  events.push(...exclusiveFinishEvents(state, market, null, context.nowMs));
  return { ok: true, events };
}

/** Applies one lifecycle event (evolve delegates here). Asserts what decide promised. */
export function evolveLifecycle(state: ExchangeState, event: LifecycleEvent): void {
  const market = state.markets.get(event.marketId);
  if (market === undefined) throw new Error(`lifecycle: unknown market ${event.marketId}`);
  switch (event.type) {
    case "MarketResolved":
      if (market.status !== "closed") throw new Error("lifecycle: resolving a market that is not closed");
      market.status = "resolving";
      state.resolutions.set(market.marketId, {
        marketId: market.marketId,
        proposerId: event.proposerId,
        proposedWinners: event.winners,
        proposedAtMs: event.atMs,
        windowEndsAtMs: event.windowEndsAtMs,
        challengeBond: event.challengeBond,
        challenge: null,
        finalWinners: null,
        settledAtMs: null,
      });
      break;
    case "ResolutionChallenged":
      applyChallenge(state, event);
      break;
    case "ChallengeBondReturned":
    case "ChallengeBondForfeited":
      applyBondReleased(state, market, event);
      break;
    case "MarketSettled": {
      const resolution = resolutionOf(state, market.marketId);
      if (market.status !== "resolving")
        throw new Error("lifecycle: settling a market that is not resolving");
      market.status = "settled";
      resolution.finalWinners = event.winners;
      resolution.settledAtMs = event.atMs;
      break;
    }
    case "MarketVoided":
      if (market.status === "settled" || market.status === "void")
        throw new Error("lifecycle: voiding a finished market");
      market.status = "void";
      break;
    default: {
      const unreachable: never = event;
      throw new Error(`lifecycle: unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A challenge freezes its bond from the challenger's account (opened if it had none). */
function applyChallenge(state: ExchangeState, event: ResolutionChallengedEvent): void {
  const resolution = resolutionOf(state, event.marketId);
  if (resolution.challenge !== null) throw new Error("lifecycle: a second challenge");
  let account = state.accounts.get(event.userId);
  if (account === undefined) {
    account = newAccount(event.userId);
    state.accounts.set(event.userId, account);
  }
  freezeFunds(account, event.bond);
  resolution.challenge = {
    userId: event.userId,
    bond: event.bond,
    reason: event.reason,
    atMs: event.atMs,
    bondHeld: true,
  };
}

/** A held bond comes back to its challenger, or is forfeited to the market's fee income. */
function applyBondReleased(
  state: ExchangeState,
  market: Market,
  event: ChallengeBondReturnedEvent | ChallengeBondForfeitedEvent,
): void {
  const challenge = resolutionOf(state, market.marketId).challenge;
  if (challenge === null || !challenge.bondHeld || challenge.bond !== event.amount)
    throw new Error("lifecycle: no such bond held");
  challenge.bondHeld = false;
  const account = state.accounts.get(event.userId)!;
  if (event.type === "ChallengeBondReturned") {
    releaseFrozen(account, event.amount);
  } else {
    account.frozen -= event.amount;
    if (account.frozen < 0n) throw new Error(`lifecycle: negative frozen for user ${event.userId}`);
    market.feeIncome += event.amount;
    state.totals.feeIncome += event.amount;
  }
}

function resolutionOf(state: ExchangeState, marketId: number): MarketResolution {
  const resolution = state.resolutions.get(marketId);
  if (resolution === undefined) throw new Error(`lifecycle: market ${marketId} has no resolution`);
  return resolution;
}

/** True when the scheduler should settle the market: resolving, unchallenged, its window over. */
export function isSettlementDue(state: ExchangeState, marketId: number, nowMs: number): boolean {
  const resolution = state.resolutions.get(marketId);
  return (
    state.markets.get(marketId)?.status === "resolving" &&
    resolution !== undefined &&
    resolution.challenge === null &&
    resolution.windowEndsAtMs <= nowMs
  );
}
