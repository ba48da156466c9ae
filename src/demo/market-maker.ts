// The demo's market-making bot: as one demo user it keeps a few bid and ask levels around a slowly
// moving fair price on each orderbook market (LIMIT GTC, post-only), and as a second user it now
// and then takes one of those quotes, so that trades, price history and WebSocket events happen
// while a newcomer looks. It only ever calls the signed API through the clients it is given;
// refusals are logged and the next tick goes on. Every loop is bounded.
// An exclusive event's outcomes are quoted as books of one market id: their fair Yes prices walk
// together and always add up to 1 (fair-price.ts), so the quoted Yes prices add up to about 1.
//
// It works as a professional maker does with the market makers' kit (DESIGN §9, docs/market-makers.md):
// - pull: on its first tick it cancels whatever an earlier run left (one cancel-all);
// - quote: every missing level of every book goes out in create-orders calls of up to 20 orders,
//   post-only, so a quote never takes by accident;
// - requote: when the fair price moves, a quote at a level no longer wanted is amended to a wanted
//   one (one amend-order instead of a cancel and a create); a book none of whose quotes is still
//   wanted (a jump, or orders of an earlier run) is pulled with one cancel-all for that book and
//   quoted afresh; quotes left over are cancelled together with one cancel-orders;
// - heartbeat: the dead-man's switch is kept armed (heartbeatTimeoutSeconds, re-armed every third of
//   it), so if the bot's process dies or hangs its quotes leave the book by themselves.

import { createOrdersItemsMax } from "../contract/partner/market-making.js";
import type { CreateOrderRequest, Order } from "../contract/partner/trading.js";
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
/** The bot's resting orders on one book never exceed this (its bids and asks together). */
export const openOrdersPerMarketMax = quoteLevelsPerSide * 2;
/** Orders placed, amended or cancelled in one tick, all markets together. */
export const ordersPerTickMax = 60;
/** Books quoted (a market of one outcome is one book; an exclusive event, one per outcome). */
export const quotedMarketsMax = 12;
/**
 * The dead-man's switch's timeout: quotes outlive a dead bot by at most this. Long enough that a
 * slow tick (a busy demo machine) never trips it, short enough that stale quotes do not linger.
 */
export const defaultHeartbeatTimeoutSeconds = 30;
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
/** Shares are on a 0.0001 step: sizes are added in these units so no float error creeps in. */
const shareStepsPerShare = 10_000;

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
  /** The dead-man's switch's timeout, 5 to 300 s (default defaultHeartbeatTimeoutSeconds). */
  readonly heartbeatTimeoutSeconds?: number;
  /** [0, 1); tests make the walk and the crossing deterministic. */
  readonly random?: () => number;
}

export interface MarketMaker {
  /** Ticks completed so far. */
  readonly ticks: number;
  /**
   * Stops the timer and waits for a tick in flight. The bot's orders stay in the book until the
   * dead-man's switch goes off (the heartbeat timeout after the last heartbeat) or a new run pulls them.
   */
  stop(): Promise<void>;
}

export interface MarketState {
  readonly market: QuotedMarket;
  fairTicks: number;
  /** The taker's shares from its own fills, so that it can sell some back. */
  takerYesShares: number;
  takerNoShares: number;
}

interface TickBudget {
  ordersLeft: number;
}

/** A level the bot wants on a book: BUY Yes at the bid, BUY No at 1 − the ask. */
export interface WantedQuote {
  readonly side: "bid" | "ask";
  readonly optionId: string;
  readonly limitPrice: number;
  readonly shares: number;
}

/** What one book needs this tick, worked out from its open orders. */
export interface BookPlan {
  readonly state: MarketState;
  /** Pull the whole book (cancel-all for it) and quote every wanted level afresh. */
  readonly pull: boolean;
  /** Quotes moved to a wanted level, the ones moving away from the spread first. */
  readonly amends: readonly { readonly order: Order; readonly to: WantedQuote }[];
  /** Quotes no longer wanted and not amended: cancelled with cancel-orders. */
  readonly cancels: readonly Order[];
  /** Wanted levels no quote rests at: placed with create-orders. */
  readonly creates: readonly WantedQuote[];
  /** The book's open orders when read. */
  readonly openCount: number;
}

export function startMarketMaker(options: MarketMakerOptions): MarketMaker {
  return new Bot(options);
}

class Bot implements MarketMaker {
  readonly #options: MarketMakerOptions;
  readonly #random: () => number;
  readonly #refusals: ThrottledLog;
  readonly #states: MarketState[];
  readonly #heartbeatTimeoutSeconds: number;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  #stopped = false;
  #ticks = 0;
  /** Whether an earlier run's orders have been pulled (the first tick does it). */
  #pulled = false;
  /** When the switch was last re-armed (Date.now()); 0 before the first heartbeat. */
  #lastHeartbeatMs = 0;

  constructor(options: MarketMakerOptions) {
    this.#options = options;
    this.#random = options.random ?? Math.random;
    this.#refusals = new ThrottledLog(options.log);
    this.#heartbeatTimeoutSeconds = options.heartbeatTimeoutSeconds ?? defaultHeartbeatTimeoutSeconds;
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
    // Armed before the first quote goes out, so no quote of this run is ever unprotected.
    await this.#keepSwitchArmed();
    if (!this.#pulled) {
      // Whatever an earlier run left is stale: one call pulls it all.
      const pulled = await this.#attempt("pull every order", () => this.#options.maker.cancelAll());
      if (pulled === undefined) return;
      this.#pulled = true;
    }
    this.#stepFairPrices();
    await this.#requote(budget);
    for (const state of this.#states) {
      if (this.#stopped) return;
      if (this.#random() < crossChance) await this.#cross(state, budget);
    }
  }

  /** Re-arms the dead-man's switch once a third of its timeout has passed since the last heartbeat. */
  async #keepSwitchArmed(): Promise<void> {
    const nowMs = Date.now();
    if (nowMs - this.#lastHeartbeatMs < (this.#heartbeatTimeoutSeconds * 1_000) / 3) return;
    const armed = await this.#attempt("heartbeat", () =>
      this.#options.maker.heartbeat(this.#heartbeatTimeoutSeconds),
    );
    if (armed !== undefined) this.#lastHeartbeatMs = nowMs;
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
   * Moves every book's quotes to the levels around its fair price. The fair price moves a tick now
   * and then, so most ticks send nothing but reads; a one-tick move is two amends. In order: books
   * to pull, leftover cancels, amends, then every missing quote of every book in create-orders calls.
   */
  async #requote(budget: TickBudget): Promise<void> {
    const maker = this.#options.maker;
    const plans: BookPlan[] = [];
    // One read per market id: an exclusive event's books share it.
    const marketIds = [...new Set(this.#states.map((state) => state.market.marketId))];
    for (const marketId of marketIds) {
      if (this.#stopped) return;
      const open = await this.#attempt("read open orders", () =>
        maker.getOpenOrders({ marketId, pageSize: openOrdersReadMax }),
      );
      if (open === undefined) continue;
      for (const state of this.#states) {
        if (state.market.marketId !== marketId) continue;
        plans.push(planBook(state, open.records));
      }
    }

    /** Books pulled (or with nothing to pull): only these are quoted afresh. */
    const pulled = new Set<BookPlan>();
    for (const plan of plans) {
      if (!plan.pull) continue;
      if (plan.openCount === 0) pulled.add(plan);
      else if (this.#spend(budget, plan.openCount)) {
        const { marketId, outcomeId } = plan.state.market;
        const answer = await this.#attempt("pull a book", () => maker.cancelAll({ marketId, outcomeId }));
        if (answer !== undefined) pulled.add(plan);
      }
    }

    const leftovers = plans.flatMap((plan) => plan.cancels);
    const cancelled = new Set<string>();
    if (leftovers.length > 0 && this.#spend(budget, leftovers.length)) {
      const answer = await this.#attempt("cancel leftovers", () =>
        maker.cancelOrders(leftovers.map((order) => order.orderId)),
      );
      for (const orderId of answer?.cancelled ?? []) cancelled.add(orderId);
    }

    for (const plan of plans) {
      for (const { order, to } of plan.amends) {
        if (!this.#spend(budget, 1)) break;
        const totalSteps =
          Math.round(Number(order.filledShares) * shareStepsPerShare) +
          Math.round(to.shares * shareStepsPerShare);
        const sameSize = Math.round(Number(order.shares) * shareStepsPerShare) === totalSteps;
        await this.#attempt("amend", () =>
          maker.amendOrder({
            orderId: order.orderId,
            limitPrice: to.limitPrice,
            ...(sameSize ? {} : { shares: totalSteps / shareStepsPerShare }),
          }),
        );
      }
    }

    // A book's orders never exceed openOrdersPerMarketMax, even when a cancel did not go through.
    const quotes: CreateOrderRequest[] = [];
    for (const plan of plans) {
      if (plan.pull && !pulled.has(plan)) continue;
      const stillOpen = plan.pull
        ? 0
        : plan.openCount - plan.cancels.filter((order) => cancelled.has(order.orderId)).length;
      const room = Math.max(0, openOrdersPerMarketMax - stillOpen);
      const { marketId, outcomeId } = plan.state.market;
      for (const quote of plan.creates.slice(0, room)) {
        quotes.push({
          marketId,
          outcomeId,
          optionId: quote.optionId,
          side: "BUY",
          orderType: "LIMIT",
          timeInForce: "GTC",
          limitPrice: quote.limitPrice,
          shares: quote.shares,
          postOnly: true,
        });
      }
    }
    for (let first = 0; first < quotes.length; first += createOrdersItemsMax) {
      if (this.#stopped) return;
      const batch = quotes.slice(first, first + createOrdersItemsMax);
      if (!this.#spend(budget, batch.length)) return;
      const answer = await this.#attempt("quote", () => maker.createOrders(batch));
      for (const result of answer?.results ?? []) {
        if (!result.ok) this.#refusals.warn(`demo bot: quote refused: ${result.message}`);
      }
    }
  }

  /**
   * The taker takes the top of one side: it buys Yes or No at the maker's best offer for it, or
   * sells back shares it holds at the maker's best bid for them. FAK: a cross or nothing, never a
   * resting order.
   */
  async #cross(state: MarketState, budget: TickBudget): Promise<void> {
    if (!this.#spend(budget, 1)) return;
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

  /** Takes `orders` from the tick's budget; false (and nothing taken) when it has not that many left. */
  #spend(budget: TickBudget, orders: number): boolean {
    if (this.#stopped || budget.ordersLeft < orders) return false;
    budget.ordersLeft -= orders;
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

/**
 * What one book needs: its open orders are matched against the wanted levels. An order resting at
 * a wanted level stays (its size is not topped up: a partly filled quote keeps its queue place). A
 * stale order is amended to a missing level of its side; what no stale order covers is created, and
 * stale orders beyond the missing levels are cancelled. When no order rests at a wanted level (a
 * jump, or an earlier run's orders) the book is pulled and quoted afresh.
 */
export function planBook(state: MarketState, marketOrders: readonly Order[]): BookPlan {
  const { market } = state;
  const wanted: WantedQuote[] = quoteLevels(state.fairTicks).map((quote) => ({
    side: quote.side,
    optionId: quote.side === "bid" ? market.yesOptionId : market.noOptionId,
    limitPrice: priceOf(quote.side === "bid" ? quote.ticks : ticksPerUnit - quote.ticks),
    shares: quote.shares,
  }));
  // An exclusive event's books share the market id: each book sees only its own orders.
  const mine = marketOrders.filter((order) => order.outcomeId === market.outcomeId);
  const missing = new Set(wanted);
  const stale: Order[] = [];
  for (const order of mine) {
    const level = [...missing].find(
      (quote) => quote.optionId === order.optionId && quote.limitPrice === Number(order.limitPrice),
    );
    if (level === undefined) stale.push(order);
    else missing.delete(level);
  }
  if (mine.length > 0 && stale.length === mine.length) {
    return { state, pull: true, amends: [], cancels: [], creates: wanted, openCount: mine.length };
  }
  const amends: { order: Order; to: WantedQuote }[] = [];
  const cancels: Order[] = [];
  for (const order of stale) {
    const to = [...missing].find((quote) => quote.optionId === order.optionId);
    if (to === undefined) cancels.push(order);
    else {
      missing.delete(to);
      amends.push({ order, to });
    }
  }
  // Post-only quotes must never meet the bot's own: the quotes moving away from the spread go first.
  // Both sides are BUY orders (a bid buys Yes, an ask buys No), so a higher price is always toward it.
  const towardSpread = ({ order, to }: { order: Order; to: WantedQuote }) =>
    to.limitPrice > Number(order.limitPrice);
  amends.sort((a, b) => Number(towardSpread(a)) - Number(towardSpread(b)));
  return { state, pull: false, amends, cancels, creates: [...missing], openCount: mine.length };
}
