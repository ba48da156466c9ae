// A given/when/then harness over the exchange decider, for the fast and the reference book alike.
// Every step checks what the core promises: decide never changes the state, a rejection changes
// nothing, and after every accepted command the invariants hold.

import assert from "node:assert/strict";
import type { BookKind } from "../../src/core/book/order-book.js";
import type { CommandContext } from "../../src/core/decider.js";
import type { RejectionCode } from "../../src/core/errors.js";
import {
  assertInvariants,
  createExchangeDecider,
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeDecider,
  type ExchangeEvent,
  type ExchangeState,
  limitOrderCommand,
  marketOrderCommand,
  type OrderSide,
  stateHash,
  type TimeInForce,
} from "../../src/core/exchange.js";
import { parseAtoms } from "../../src/core/money.js";

export const bookKinds: readonly BookKind[] = ["reference", "fast"];

/** "0.55" → atoms. */
export function atoms(decimal: string): bigint {
  const parsed = parseAtoms(decimal);
  if (!parsed.ok) throw new Error(`bad decimal ${decimal}`);
  return parsed.atoms;
}

export interface BinaryMarket {
  marketId: number;
  outcomeId: number;
  yes: number;
  no: number;
}

export type Decided = { ok: true; events: ExchangeEvent[] } | { ok: false; code: RejectionCode };

export class Exchange {
  readonly decider: ExchangeDecider;
  state: ExchangeState;
  nowMs = 1_700_000_000_000;
  private sequence = 0n;
  readonly journal: ExchangeEvent[] = [];

  constructor(readonly kind: BookKind) {
    this.decider = createExchangeDecider(kind);
    this.state = this.decider.initialState();
  }

  context(): CommandContext {
    this.sequence++;
    return { nowMs: this.nowMs, sequence: this.sequence };
  }

  /** Decides and applies one command; checks decide did not touch the state. */
  run(command: ExchangeCommand): Decided {
    const before = stateHash(this.state);
    const decision = this.decider.decide(this.state, command, this.context());
    assert.equal(stateHash(this.state), before, "decide must not change the state");
    if (!decision.ok) return { ok: false, code: decision.rejection.code };
    for (const event of decision.events) {
      this.state = this.decider.evolve(this.state, event);
      this.journal.push(event);
    }
    assertInvariants(this.state);
    return { ok: true, events: decision.events };
  }

  /** The command must be accepted; returns its events. */
  accept(command: ExchangeCommand): ExchangeEvent[] {
    const decided = this.run(command);
    assert.ok(decided.ok, `expected acceptance, got ${decided.ok ? "" : decided.code}`);
    return decided.events;
  }

  /** The command must be refused with `code` and change nothing. */
  refuse(command: ExchangeCommand, code: RejectionCode): void {
    const before = stateHash(this.state);
    const decided = this.run(command);
    assert.deepEqual(decided, { ok: false, code });
    assert.equal(stateHash(this.state), before, "a rejection must not change the state");
  }

  openMarket(fields: Partial<Parameters<typeof createMarketCommand>[0]> = {}): BinaryMarket {
    const [created] = this.accept(createMarketCommand({ title: "Will it rain?", ...fields }));
    assert.ok(created?.type === "MarketCreated");
    this.accept({ type: "OpenMarket", marketId: created.marketId });
    const outcome = created.outcomes[0]!;
    return {
      marketId: created.marketId,
      outcomeId: outcome.outcomeId,
      yes: outcome.options[0]!.optionId,
      no: outcome.options[1]!.optionId,
    };
  }

  private depositCount = 0;
  deposit(userId: number, usdt: string): void {
    this.accept({ type: "Deposit", userId, amount: atoms(usdt), txHash: `0xdeposit${++this.depositCount}` });
  }

  limit(
    userId: number,
    market: BinaryMarket,
    optionId: number,
    side: OrderSide,
    price: string,
    shares: string,
    extra: {
      timeInForce?: TimeInForce;
      expiresAtMs?: number | null;
      clientOrderId?: string | null;
      postOnly?: boolean;
    } = {},
  ): ExchangeCommand {
    return limitOrderCommand({
      userId,
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId,
      side,
      limitPrice: atoms(price),
      shares: atoms(shares),
      ...extra,
    });
  }

  marketBuy(userId: number, market: BinaryMarket, optionId: number, amount: string): ExchangeCommand {
    return marketOrderCommand({
      userId,
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId,
      side: "BUY",
      amount: atoms(amount),
    });
  }

  marketSell(userId: number, market: BinaryMarket, optionId: number, shares: string): ExchangeCommand {
    return marketOrderCommand({
      userId,
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId,
      side: "SELL",
      shares: atoms(shares),
    });
  }
}

export function eventsOfType<T extends ExchangeEvent["type"]>(
  events: readonly ExchangeEvent[],
  type: T,
): Extract<ExchangeEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ExchangeEvent, { type: T }> => event.type === type);
}

/** Free + frozen shares a user holds of an option, in atoms. */
export function sharesHeld(exchange: Exchange, userId: number, optionId: number): bigint {
  const position = exchange.state.accounts.get(userId)?.positions.get(optionId);
  return position === undefined ? 0n : position.shares + position.frozenShares;
}

/** Given two users who minted `shares` pairs at 0.5 (userA holds Yes, userB holds No). */
export function mintPairs(
  exchange: Exchange,
  market: BinaryMarket,
  userA: number,
  userB: number,
  shares: string,
): void {
  exchange.accept(exchange.limit(userA, market, market.yes, "BUY", "0.5", shares));
  exchange.accept(exchange.limit(userB, market, market.no, "BUY", "0.5", shares));
}
