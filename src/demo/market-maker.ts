// The demo's market-making bot: as one demo user it keeps a few bid and ask levels around a slowly
// moving fair price on each orderbook market (LIMIT GTC, moved when the price moves), and
// as a second user it now and then takes one of those quotes, so that trades, price history and
// WebSocket events happen while a newcomer looks. It only ever calls the signed API through the
// clients it is given; refusals are logged and the next tick goes on. Every loop is bounded.
// An exclusive event's outcomes are quoted as books of one market id: their fair Yes prices walk
// together and always add up to 1 (fair-price.ts), so the quoted Yes prices add up to about 1.

import type { Order } from "../contract/partner/trading.js";
import type { PredexClient } from "../sdk/client.js";
import {
  eventFairTicks,
  nextEventFairTicks,
  nextFairTicks,
  priceOf,
  ticksOf,
  ticksPerUnit,
} from "./fair-price.js";
import type { DemoLog } from "./seed.js";
import { ThrottledLog } from "./throttled-log.js";

export const defaultBotTickMs = 3_000;
export const quoteLevelsPerSide = 3;
/** The bot's resting orders on one market never exceed this (its bids and asks together). */
export const openOrdersPerMarketMax = quoteLevelsPerSide * 2;
/** Orders placed plus orders cancelled in one tick, all markets together. */
export const ordersPerTickMax = 60;
/** Books quoted (a market of one outcome is one book; an exclusive event, one per outcome). */
export const quotedMarketsMax = 12;
/** Open orders read back per market; more than the bot ever leaves, so leftovers are seen too. */
const openOrdersReadMax = 50;
/** Ticks between the fair price and the best bid (and the best ask), and between levels. */
const halfSpreadTicks = 1;
const levelStepTicks = 1;
/** Level i (from 0) quotes (i + 1) × this many shares: thin at the top, deeper further out. */
const levelSharesStep = 20;
const crossSharesMin = 2;
const crossSharesMax = 10;
export const defaultCrossChance = 0.3;

export interface QuotedMarket {
  readonly marketId: string;
  readonly outcomeId: string;
  readonly yesOptionId: string;
  readonly noOptionId: string;
  /** Where the fair price starts. */
  readonly yesPrice: number;
}

export interface MarketMakerOptions {
  /** Signed in as the user that quotes. */
  readonly maker: PredexClient;
  /** Signed in as the user that crosses. */
  readonly taker: PredexClient;
  readonly markets: readonly QuotedMarket[];
  readonly log: DemoLog;
  readonly tickMs?: number;
  /** The chance per market and tick that the taker trades against the quotes. */
  readonly crossChance?: number;
  /** [0, 1); tests make the walk and the crossing deterministic. */
  readonly random?: () => number;
}

export interface MarketMaker {
  /** Ticks completed so far. */
  readonly ticks: number;
  /** Stops the timer and waits for a tick in flight; the bot's orders stay in the book. */
  stop(): Promise<void>;
}

interface MarketState {
  readonly market: QuotedMarket;
  fairTicks: number;
  /** The taker's shares from its own fills, so that it can sell some back. */
  takerYesShares: number;
  takerNoShares: number;
}

interface TickBudget {
  ordersLeft: number;
}

export function startMarketMaker(options: MarketMakerOptions): MarketMaker {
  return new Bot(options);
}

class Bot implements MarketMaker {
  readonly #options: MarketMakerOptions;
  readonly #random: () => number;
  readonly #refusals: ThrottledLog;
  readonly #states: MarketState[];
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  #stopped = false;
  #ticks = 0;

  constructor(options: MarketMakerOptions) {
    this.#options = options;
    this.#random = options.random ?? Math.random;
    this.#refusals = new ThrottledLog(options.log);
    this.#states = options.markets.slice(0, quotedMarketsMax).map((market) => ({
      market,
      fairTicks: ticksOf(market.yesPrice),
      takerYesShares: 0,
      takerNoShares: 0,
    }));
    for (const event of this.#events()) {
      const ticks = eventFairTicks(event.map((state) => state.market.yesPrice));
      event.forEach((state, index) => {
        state.fairTicks = ticks[index]!;
      });
    }
    // The first quotes go up at once; then one tick every tickMs after the previous one ends.
    this.#schedule(0);
  }

  get ticks(): number {
    return this.#ticks;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#inFlight = this.#tick()
        .catch((error: unknown) => this.#refusals.warn(`demo bot: tick failed: ${String(error)}`))
        .finally(() => {
          this.#inFlight = undefined;
          this.#ticks += 1;
          this.#schedule(this.#options.tickMs ?? defaultBotTickMs);
        });
    }, delayMs);
  }

  async #tick(): Promise<void> {
    const budget: TickBudget = { ordersLeft: ordersPerTickMax };
    const crossChance = this.#options.crossChance ?? defaultCrossChance;
    this.#stepFairPrices();
    for (const state of this.#states) {
      if (this.#stopped) return;
      await this.#requote(state, budget);
      if (!this.#stopped && this.#random() < crossChance) await this.#cross(state, budget);
    }
  }

  /** The books of one market id quoted together: an exclusive event's outcomes (several books). */
  #events(): MarketState[][] {
    const byMarket = new Map<string, MarketState[]>();
    for (const state of this.#states) {
      const books = byMarket.get(state.market.marketId) ?? [];
      books.push(state);
      byMarket.set(state.market.marketId, books);
    }
    return [...byMarket.values()].filter((books) => books.length > 1);
  }

  /** One step of every fair price: a market's on its own, an event's outcomes together (sum kept). */
  #stepFairPrices(): void {
    const events = this.#events();
    const inEvents = new Set(events.flat());
    for (const state of this.#states) {
      if (!inEvents.has(state)) state.fairTicks = nextFairTicks(state.fairTicks, this.#random);
    }
    for (const event of events) {
      const ticks = nextEventFairTicks(
        event.map((state) => state.fairTicks),
        this.#random,
      );
      event.forEach((state, index) => {
        state.fairTicks = ticks[index]!;
      });
    }
  }

  /**
   * Moves the maker's quotes to the levels around the fair price: an order already resting at a
   * wanted level stays, the others are cancelled, and only the missing levels are placed. The fair
   * price moves a tick now and then, so most ticks write nothing, and a move rewrites two levels
   * instead of all six (the demo's journal and order history grow that much slower).
   */
  async #requote(state: MarketState, budget: TickBudget): Promise<void> {
    const { market } = state;
    const maker = this.#options.maker;
    const open = await this.#attempt("read open orders", () =>
      maker.getOpenOrders({ marketId: market.marketId, pageSize: openOrdersReadMax }),
    );
    if (open === undefined) return;
    // A bid is BUY Yes at p; an ask is BUY No at 1 − p: both need only cash, never inventory.
    const wanted = quoteLevels(state.fairTicks).map((quote) => ({
      optionId: quote.side === "bid" ? market.yesOptionId : market.noOptionId,
      limitPrice: priceOf(quote.side === "bid" ? quote.ticks : ticksPerUnit - quote.ticks),
      shares: quote.shares,
      resting: false,
    }));
    // An exclusive event's books share the market id: each book sees only its own orders.
    const mine = open.records.filter((order) => order.outcomeId === market.outcomeId);
    let stillOpen = mine.length;
    for (const order of mine) {
      const level = wanted.find(
        (quote) =>
          !quote.resting &&
          quote.optionId === order.optionId &&
          quote.limitPrice === Number(order.limitPrice),
      );
      if (level !== undefined) {
        level.resting = true;
        continue;
      }
      if (!this.#spend(budget)) break;
      const cancelled = await this.#attempt("cancel", () => maker.cancelOrder(order.orderId));
      if (cancelled !== undefined) stillOpen -= 1;
    }
    const room = openOrdersPerMarketMax - stillOpen;
    const missing = wanted.filter((quote) => !quote.resting).slice(0, Math.max(0, room));
    for (const quote of missing) {
      if (!this.#spend(budget)) return;
      await this.#attempt("quote", () =>
        maker.createOrder({
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: quote.optionId,
          side: "BUY",
          orderType: "LIMIT",
          timeInForce: "GTC",
          limitPrice: quote.limitPrice,
          shares: quote.shares,
        }),
      );
    }
  }

  /**
   * The taker takes the top of one side: it buys Yes or No at the maker's best offer for it, or
   * sells back shares it holds at the maker's best bid for them. FAK: a cross or nothing, never a
   * resting order.
   */
  async #cross(state: MarketState, budget: TickBudget): Promise<void> {
    if (!this.#spend(budget)) return;
    const { market } = state;
    const bestBidTicks = state.fairTicks - halfSpreadTicks;
    const bestAskTicks = state.fairTicks + halfSpreadTicks;
    const onYes = this.#random() < 0.5;
    const held = onYes ? state.takerYesShares : state.takerNoShares;
    const shares = crossSharesMin + Math.floor(this.#random() * (crossSharesMax - crossSharesMin + 1));
    const sell = held >= shares && this.#random() < 0.5;
    // In the option's own terms: the maker bids Yes at the best bid and No at 1 − the best ask.
    const yesTicks = sell ? bestBidTicks : bestAskTicks;
    const priceTicks = onYes ? yesTicks : ticksPerUnit - (sell ? bestAskTicks : bestBidTicks);
    const order: Order | undefined = await this.#attempt("cross", () =>
      this.#options.taker.createOrder({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: onYes ? market.yesOptionId : market.noOptionId,
        side: sell ? "SELL" : "BUY",
        orderType: "LIMIT",
        timeInForce: "FAK",
        limitPrice: priceOf(priceTicks),
        shares,
      }),
    );
    if (order === undefined) return;
    const filled = Number(order.filledShares) * (sell ? -1 : 1);
    if (onYes) state.takerYesShares += filled;
    else state.takerNoShares += filled;
  }

  #spend(budget: TickBudget): boolean {
    if (this.#stopped || budget.ordersLeft <= 0) return false;
    budget.ordersLeft -= 1;
    return true;
  }

  /** Runs one request; a refusal or a network failure is logged (throttled) and answers undefined. */
  async #attempt<Result>(what: string, request: () => Promise<Result>): Promise<Result | undefined> {
    try {
      return await request();
    } catch (error) {
      this.#refusals.warn(
        `demo bot: ${what} refused: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }
}

export interface QuoteLevel {
  readonly side: "bid" | "ask";
  /** In Yes ticks. */
  readonly ticks: number;
  readonly shares: number;
}

/** Best levels first, alternating bid and ask, so a cut-off list still quotes both sides. */
export function quoteLevels(fairTicks: number): QuoteLevel[] {
  const levels: QuoteLevel[] = [];
  for (let level = 0; level < quoteLevelsPerSide; level += 1) {
    const offset = halfSpreadTicks + level * levelStepTicks;
    const shares = (level + 1) * levelSharesStep;
    const bid = fairTicks - offset;
    const ask = fairTicks + offset;
    if (bid >= 1) levels.push({ side: "bid", ticks: bid, shares });
    if (ask <= ticksPerUnit - 1) levels.push({ side: "ask", ticks: ask, shares });
  }
  return levels;
}
