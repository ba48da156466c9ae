// The exchange core's public entry: the decider the engine runs, its state codec, the state hash,
// and the queries. Two deciders differ only in their book: the fast one for production, the
// reference one for tests and the benchmark's sanity check.
//
// Usage, with atoms from money.ts's parseAtoms ("0.55" → 55_000_000n):
//
//   let state = exchangeDecider.initialState();
//   const context = { nowMs, sequence };            // from the engine's sequencer
//   const decision = exchangeDecider.decide(state, createMarketCommand({ title: "Rain?" }), context);
//   if (decision.ok) for (const event of decision.events) state = exchangeDecider.evolve(state, event);
//   // then { type: "OpenMarket", marketId }, { type: "Deposit", userId, amount, txHash },
//   // limitOrderCommand({ userId, marketId, outcomeId, optionId, side: "BUY", limitPrice, shares }),
//   // marketOrderCommand({ ..., side: "BUY", amount }), { type: "CancelOrder", userId, orderId }.
//
// A rejection (decision.ok false) carries a code from errors.ts and changes nothing.

import type { BookKind } from "./book/order-book.js";
import { createStateCodec, encodeState } from "./codec.js";
import type { ExchangeCommand } from "./commands.js";
import { decide } from "./decide.js";
import type { Decider, StateCodec } from "./decider.js";
import type { ExchangeEvent } from "./events.js";
import { evolve } from "./evolve.js";
import { fnv1a64 } from "./hash.js";
import { createInitialState, type ExchangeState } from "./state.js";

export type ExchangeDecider = Decider<ExchangeState, ExchangeCommand, ExchangeEvent>;

export function createExchangeDecider(bookKind: BookKind): ExchangeDecider {
  return { decide, evolve, initialState: () => createInitialState(bookKind) };
}

export const exchangeDecider: ExchangeDecider = createExchangeDecider("fast");
export const referenceExchangeDecider: ExchangeDecider = createExchangeDecider("reference");

export const exchangeStateCodec: StateCodec<ExchangeState> = createStateCodec("fast");
export const referenceExchangeStateCodec: StateCodec<ExchangeState> = createStateCodec("reference");

/** A 64-bit FNV-1a hash (16 hex digits) of the canonical encoding: equal states, equal hashes. */
export function stateHash(state: ExchangeState): string {
  return fnv1a64(encodeState(state));
}

export type { BookKind } from "./book/order-book.js";
export type { OrderSide, OrderStatus, OrderType, TimeInForce } from "./book/orders.js";
export * from "./commands.js";
export type { CommandContext, Decision } from "./decider.js";
export * from "./events.js";
export { conversionSharesMax } from "./exclusive/convert.js";
export type {
  BurnedNoLeg,
  ExclusiveMarketFinishedEvent,
  MintedYesLeg,
  PositionsConvertedEvent,
} from "./exclusive/events.js";
export { isExclusiveMarket } from "./exclusive/exclusive-market.js";
export { assertInvariants, checkInvariants } from "./invariants.js";
export {
  challengeReasonLengthMax,
  challengeWindowMsMax,
  challengeWindowMsMin,
  defaultChallengeBondAtoms,
  defaultChallengeWindowMs,
} from "./lifecycle/lifecycle.js";
export type { PositionStatus } from "./lifecycle/settlement.js";
export type { MarketStatus, ModelType } from "./market.js";
export type { PoolTerms, PoolTermsInput } from "./pools/models.js";
export { type PoolMarketView, type PoolOptionPrices, poolMarketView } from "./pools/queries.js";
export * from "./queries.js";
export { dueScheduledCommands } from "./schedule.js";
export type { ExchangeState } from "./state.js";
