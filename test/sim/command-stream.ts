// A seeded stream of mixed exchange commands, chosen from the current state so most of them do
// something: markets of all three models created, opened, closed, resolved, challenged, finalized,
// settled by the scheduler or voided; deposits (some repeating a transaction hash); order-book
// LIMIT orders in every time in force (some post-only) and MARKET orders; AMM buys and sells;
// parimutuel stakes; amends; cancels (some of someone else's order) and mass cancels; dead-man's
// switches armed and disarmed; clientOrderIds, some reused; claims; withdrawals through their whole
// workflow; exclusive markets, trading on every outcome's book and converting No shares (some
// conversions refused); and the scheduler's due commands (switches going off among them). Same
// seed, same state → same commands.

import {
  createMarketCommand,
  dueScheduledCommands,
  type ExchangeCommand,
  type ExchangeState,
  limitOrderCommand,
  marketOrderCommand,
} from "../../src/core/exchange.js";
import type { ModelType } from "../../src/core/market.js";

/** Mulberry32: small, seeded, and the same on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const usdt = 100_000_000n;
const cent = 1_000_000n;
export const simUsers = [1, 2, 3, 4, 5, 6] as const;
const models: readonly ModelType[] = ["orderbook", "AMM", "parimutuel"];

export class CommandStream {
  readonly #random: () => number;
  #depositNumber = 0;
  #clientOrderNumber = 0;
  #marketNumber = 0;

  constructor(seed: number) {
    this.#random = seededRandom(seed * 7919 + 1);
  }

  #integer(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  #pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.#random() * items.length)];
  }

  #chance(probability: number): boolean {
    return this.#random() < probability;
  }

  /** `count` commands for the state as it is at `nowMs` (all submitted together, as one group). */
  next(state: Readonly<ExchangeState>, nowMs: number, count: number): ExchangeCommand[] {
    const commands = dueScheduledCommands(state as ExchangeState, nowMs, 4);
    while (commands.length < count) commands.push(this.#one(state, nowMs));
    return commands;
  }

  #one(state: Readonly<ExchangeState>, nowMs: number): ExchangeCommand {
    const markets = [...state.markets.values()];
    // Keep two live markets of each model, so every model always trades.
    for (const modelType of models) {
      const live = markets.filter(
        (market) => market.modelType === modelType && !["settled", "void"].includes(market.status),
      );
      if (live.length < 2 && this.#chance(0.5)) return this.#createMarket(modelType, nowMs);
    }
    // And one live exclusive market, whose conversions need No shares of its outcomes.
    const liveExclusive = markets.filter(
      (market) => state.exclusiveMarkets.has(market.marketId) && !["settled", "void"].includes(market.status),
    );
    if (liveExclusive.length === 0 && this.#chance(0.5)) return this.#createExclusiveMarket(nowMs);
    const draft = markets.find((market) => market.status === "draft");
    if (draft !== undefined && this.#chance(0.7)) return { type: "OpenMarket", marketId: draft.marketId };

    const roll = this.#random();
    const userId = this.#pick(simUsers)!;
    if (roll < 0.1) return this.#deposit(userId);
    if (roll < 0.55) return this.#order(state, userId, nowMs);
    if (roll < 0.59) return this.#amend(state, userId);
    if (roll < 0.63) return this.#convert(state, userId);
    if (roll < 0.69) return this.#cancel(state, userId);
    if (roll < 0.78) return this.#lifecycle(state);
    if (roll < 0.86) return this.#claim(state, userId);
    if (roll < 0.88) return this.#heartbeat(userId);
    return this.#wallet(state, userId);
  }

  #createMarket(modelType: ModelType, nowMs: number): ExchangeCommand {
    this.#marketNumber += 1;
    const title = `sim ${modelType} ${this.#marketNumber}`;
    // Some markets end by themselves soon, so the scheduler's CloseMarket runs too.
    const endTimeMs = this.#chance(0.3) ? nowMs + this.#integer(5_000, 60_000) : null;
    if (modelType === "orderbook") {
      return createMarketCommand({ title, endTimeMs, makerFeeBps: this.#integer(0, 50), takerFeeBps: 20 });
    }
    if (modelType === "AMM") {
      const yes = BigInt(this.#integer(20, 80)) * cent;
      return createMarketCommand({
        title,
        modelType,
        endTimeMs,
        pool: {
          liquidity: BigInt(this.#integer(100, 400)) * usdt,
          weights: [yes, usdt - yes],
          buyFeeBps: 100,
        },
      });
    }
    return createMarketCommand({
      title,
      modelType,
      endTimeMs,
      pool: { settlementFeeBps: this.#integer(0, 300) },
    });
  }

  #createExclusiveMarket(nowMs: number): ExchangeCommand {
    this.#marketNumber += 1;
    const outcomeCount = this.#integer(2, 4);
    return createMarketCommand({
      title: `sim exclusive ${this.#marketNumber}`,
      outcomes: Array.from({ length: outcomeCount }, (_unused, index) => ({
        name: `O${index}`,
        options: null,
      })),
      exclusive: true,
      endTimeMs: this.#chance(0.3) ? nowMs + this.#integer(5_000, 60_000) : null,
      makerFeeBps: this.#integer(0, 50),
      takerFeeBps: 20,
    });
  }

  /** No shares of some outcomes of an exclusive market the user holds, some of them; now and then too many. */
  #convert(state: Readonly<ExchangeState>, userId: number): ExchangeCommand {
    const market = this.#pick(
      [...state.markets.values()].filter((each) => state.exclusiveMarkets.has(each.marketId)),
    );
    if (market === undefined) return this.#deposit(userId);
    const noSharesOf = (user: number, outcomeId: number) =>
      state.accounts.get(user)?.positions.get(state.outcomes.get(outcomeId)!.optionIds[1])?.shares ?? 0n;
    // No shares of an exclusive market are few (they come from crosses on its books): mostly a user
    // who holds some converts, so conversions are not nearly all refused.
    const holders = simUsers.filter((user) =>
      market.outcomeIds.some((outcomeId) => noSharesOf(user, outcomeId) > 0n),
    );
    const converter = holders.length > 0 && this.#chance(0.8) ? this.#pick(holders)! : userId;
    const freeNo = (outcomeId: number) => noSharesOf(converter, outcomeId);
    const holding = market.outcomeIds.filter((outcomeId) => freeNo(outcomeId) > 0n && this.#chance(0.7));
    const listed = holding.length > 0 ? holding : [this.#pick(market.outcomeIds)!];
    let fewest = freeNo(listed[0]!);
    for (const outcomeId of listed) if (freeNo(outcomeId) < fewest) fewest = freeNo(outcomeId);
    const lot = 10_000n;
    const shares = ((fewest * BigInt(this.#integer(1, 110))) / 100n / lot) * lot;
    return {
      type: "ConvertPositions",
      userId: converter,
      marketId: market.marketId,
      outcomeIds: listed,
      shares: shares === 0n ? lot : shares,
    };
  }

  #deposit(userId: number): ExchangeCommand {
    this.#depositNumber += 1;
    // One in ten repeats an earlier hash: the core must refuse it (DEPOSIT_DUPLICATE).
    const number =
      this.#depositNumber > 3 && this.#chance(0.1)
        ? this.#integer(1, this.#depositNumber - 1)
        : this.#depositNumber;
    return {
      type: "Deposit",
      userId,
      amount: BigInt(this.#integer(20, 600)) * usdt,
      txHash: `0xsim${number}`,
    };
  }

  #clientOrderId(): string | null {
    if (!this.#chance(0.25)) return null;
    if (this.#clientOrderNumber > 0 && this.#chance(0.3))
      return `c${this.#integer(1, this.#clientOrderNumber)}`;
    this.#clientOrderNumber += 1;
    return `c${this.#clientOrderNumber}`;
  }

  #order(state: Readonly<ExchangeState>, userId: number, nowMs: number): ExchangeCommand {
    const open = [...state.markets.values()].filter((market) => market.status === "open");
    // Half the orders go to order books, where crossing needs more of them than a pool does.
    const books = open.filter((market) => market.modelType === "orderbook");
    const market =
      (this.#chance(0.5) ? this.#pick(books) : undefined) ??
      this.#pick(open) ??
      this.#pick([...state.markets.values()]);
    if (market === undefined) return this.#deposit(userId);
    // An exclusive market's outcomes all trade; other markets' first outcome does.
    const outcomeId = state.exclusiveMarkets.has(market.marketId)
      ? this.#pick(market.outcomeIds)!
      : market.outcomeIds[0]!;
    const outcome = state.outcomes.get(outcomeId)!;
    const optionIndex = this.#integer(0, 1);
    const optionId = outcome.optionIds[optionIndex]!;
    const where = { userId, marketId: market.marketId, outcomeId: outcome.outcomeId, optionId };
    const clientOrderId = this.#clientOrderId();
    const held = state.accounts.get(userId)?.positions.get(optionId);
    const sellable = held === undefined ? 0n : held.shares - held.frozenShares;
    if (market.modelType === "parimutuel") {
      return marketOrderCommand({
        ...where,
        side: "BUY",
        amount: BigInt(this.#integer(1, 3000)) * cent,
        clientOrderId,
      });
    }
    if (market.modelType === "AMM") {
      if (sellable > 0n && this.#chance(0.4)) {
        const shares = (sellable * BigInt(this.#integer(1, 100))) / 100n;
        return marketOrderCommand({ ...where, side: "SELL", shares, clientOrderId });
      }
      return marketOrderCommand({
        ...where,
        side: "BUY",
        amount: BigInt(this.#integer(1, 5000)) * cent,
        clientOrderId,
      });
    }
    const side = sellable > 0n && this.#chance(0.4) ? "SELL" : "BUY";
    const shares = side === "SELL" && this.#chance(0.5) ? sellable : BigInt(this.#integer(100, 3000)) * cent;
    if (this.#chance(0.2)) {
      return side === "BUY"
        ? marketOrderCommand({
            ...where,
            side,
            amount: BigInt(this.#integer(100, 3000)) * cent,
            clientOrderId,
          })
        : marketOrderCommand({ ...where, side, shares, clientOrderId });
    }
    const timeInForce = this.#pick(["GTC", "GTC", "GTD", "FOK", "FAK"] as const)!;
    // A quarter of the orders that may rest are post-only (refused when they would trade at once).
    const postOnly = (timeInForce === "GTC" || timeInForce === "GTD") && this.#chance(0.25);
    return limitOrderCommand({
      ...where,
      side,
      limitPrice: BigInt(this.#integer(25, 75)) * cent,
      shares,
      timeInForce,
      expiresAtMs: timeInForce === "GTD" ? nowMs + this.#integer(1_000, 30_000) : null,
      clientOrderId,
      ...(postOnly ? { postOnly } : {}),
    });
  }

  #cancel(state: Readonly<ExchangeState>, userId: number): ExchangeCommand {
    if (this.#chance(0.15)) return this.#cancelAll(state, userId);
    const orders = state.orders.values();
    const order = this.#pick(orders);
    if (order === undefined) return { type: "ExpireOrders" };
    // Mostly the owner; now and then someone else, which the core must refuse.
    return {
      type: "CancelOrder",
      userId: this.#chance(0.85) ? order.userId : userId,
      orderId: order.orderId,
    };
  }

  /** An amend of a resting order (mostly its owner's): a new size, a new price, or both. */
  #amend(state: Readonly<ExchangeState>, userId: number): ExchangeCommand {
    const order = this.#pick(state.orders.values());
    if (order === undefined) return { type: "ExpireOrders" };
    const roll = this.#random();
    return {
      type: "AmendOrder",
      userId: this.#chance(0.9) ? order.userId : userId,
      orderId: order.orderId,
      shares: roll < 0.7 ? BigInt(this.#integer(50, 3000)) * cent : null,
      limitPrice: roll > 0.4 ? BigInt(this.#integer(25, 75)) * cent : null,
    };
  }

  /** Arms (mostly), re-arms or disarms the user's dead-man's switch; the scheduler trips it when due. */
  #heartbeat(userId: number): ExchangeCommand {
    const timeoutMs = this.#chance(0.2) ? 0 : this.#integer(5, 20) * 1_000;
    return { type: "Heartbeat", userId, timeoutMs };
  }

  /** A mass cancel: all of the user's orders, one market's (any status), or one book's. */
  #cancelAll(state: Readonly<ExchangeState>, userId: number): ExchangeCommand {
    const market = this.#chance(0.4) ? undefined : this.#pick([...state.markets.values()]);
    const outcomeId = market !== undefined && this.#chance(0.5) ? market.outcomeIds[0]! : null;
    return { type: "CancelAllOrders", userId, marketId: market?.marketId ?? null, outcomeId };
  }

  #lifecycle(state: Readonly<ExchangeState>): ExchangeCommand {
    const market = this.#pick([...state.markets.values()]);
    if (market === undefined) return { type: "ExpireOrders" };
    const { marketId } = market;
    // An exclusive market mostly gets a result it accepts: one outcome's Yes, every other's No.
    const exclusiveWinner =
      state.exclusiveMarkets.has(marketId) && this.#chance(0.9) ? this.#pick(market.outcomeIds) : undefined;
    const winners = () =>
      market.outcomeIds.map((outcomeId) => ({
        outcomeId,
        winningOptionId:
          state.outcomes.get(outcomeId)!.optionIds[
            exclusiveWinner === undefined ? this.#integer(0, 1) : outcomeId === exclusiveWinner ? 0 : 1
          ]!,
      }));
    switch (market.status) {
      case "draft":
        return { type: "OpenMarket", marketId };
      case "open":
        if (this.#chance(0.03)) return { type: "VoidMarket", marketId };
        return this.#chance(0.1) ? { type: "CloseMarket", marketId } : { type: "ExpireOrders" };
      case "closed":
        if (this.#chance(0.1)) return { type: "VoidMarket", marketId };
        return {
          type: "ResolveMarket",
          marketId,
          proposerId: null,
          winners: winners(),
          challengeWindowMs: this.#chance(0.5) ? 60_000 : null,
          challengeBond: this.#chance(0.5) ? 5n * usdt : null,
        };
      case "resolving": {
        const roll = this.#random();
        if (roll < 0.3)
          return {
            type: "ChallengeResolution",
            marketId,
            userId: this.#pick(simUsers)!,
            reason: "wrong result",
          };
        if (roll < 0.4) return { type: "VoidMarket", marketId };
        return { type: "FinalizeMarket", marketId, winners: this.#chance(0.3) ? winners() : null };
      }
      default:
        return { type: "ClaimMarket", userId: this.#pick(simUsers)!, marketId };
    }
  }

  #claim(state: Readonly<ExchangeState>, userId: number): ExchangeCommand {
    const account = state.accounts.get(userId);
    const position = account === undefined ? undefined : this.#pick([...account.positions.values()]);
    if (position === undefined || this.#chance(0.3)) {
      const market = this.#pick([...state.markets.values()]);
      return market === undefined
        ? this.#deposit(userId)
        : { type: "ClaimMarket", userId, marketId: market.marketId };
    }
    return { type: "ClaimPosition", userId, positionId: position.positionId };
  }

  #wallet(state: Readonly<ExchangeState>, userId: number): ExchangeCommand {
    const withdrawal = this.#pick([...state.withdrawals.values()]);
    const roll = this.#random();
    if (withdrawal === undefined || roll < 0.4) {
      const available = state.accounts.get(userId)?.available ?? 0n;
      const amount = available > 2n * usdt ? (available * BigInt(this.#integer(1, 60))) / 100n : 3n * usdt;
      return {
        type: "RequestWithdrawal",
        userId,
        amount,
        fee: usdt,
        address: `0x${"ab".repeat(20)}`,
      };
    }
    const { withdrawalId } = withdrawal;
    if (roll < 0.55) return { type: "CancelWithdrawal", userId: withdrawal.userId, withdrawalId };
    if (roll < 0.75) return { type: "ApproveWithdrawal", withdrawalId };
    if (roll < 0.85) return { type: "RejectWithdrawal", withdrawalId };
    return { type: "CompleteWithdrawal", withdrawalId };
  }
}
