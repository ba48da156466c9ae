// The lookups evolve uses (evolve.ts, and pools/evolve.ts for the pool events). evolve trusts its
// events, so a market or outcome that is missing is a bug and throws; an account or a position is
// created by the first event that names it, with the id the event carries.

import type { Market, Outcome } from "./market.js";
import type { ExchangeState } from "./state.js";
import { type Account, newAccount } from "./wallet/ledger.js";
import { newPosition, type Position } from "./wallet/positions.js";

export function marketOf(state: ExchangeState, marketId: number): Market {
  const market = state.markets.get(marketId);
  if (market === undefined) throw new Error(`evolve: unknown market ${marketId}`);
  return market;
}

export function outcomeOf(state: ExchangeState, outcomeId: number): Outcome {
  const outcome = state.outcomes.get(outcomeId);
  if (outcome === undefined) throw new Error(`evolve: unknown outcome ${outcomeId}`);
  return outcome;
}

export function accountFor(state: ExchangeState, userId: number): Account {
  let account = state.accounts.get(userId);
  if (account === undefined) {
    account = newAccount(userId);
    state.accounts.set(userId, account);
  }
  return account;
}

/** The user's position in an option, created with the event's id when it is the first. */
export function positionFor(
  state: ExchangeState,
  account: Account,
  positionId: number,
  optionId: number,
): Position {
  let position = account.positions.get(optionId);
  if (position === undefined) {
    const { counters } = state;
    if (positionId !== counters.nextPositionId) throw new Error("evolve: position id out of sequence");
    counters.nextPositionId = positionId + 1;
    const option = state.options.get(optionId)!;
    position = newPosition(positionId, account.userId, option.marketId, option.outcomeId, optionId);
    account.positions.set(optionId, position);
  } else if (position.positionId !== positionId) {
    throw new Error("evolve: position id differs");
  }
  return position;
}
