// The market page's live data from the public /ws/market (Polymarket's market channel), kept the
// way the SDK's MarketSocket keeps it (src/sdk/ws/market-socket.ts): subscribe at connect, a text
// PING every pingIntervalMs, a socket that stays silent for heartbeatTimeoutMs is replaced, and
// every reconnect (capped backoff) subscribes again so each asset's `book` event re-seeds it.
// Between seeds, a `price_change` whose book `hash` differs from the hash of our copy after the
// change means we missed something: that asset is re-subscribed, and its next `book` re-seeds it.
//
// Messages are queued as they arrive and applied together once per animation frame, so a burst
// of updates costs one render, painted in the frame after the first of them arrived.

import { fnv1a64 } from "../../../src/core/hash.js";

export interface Level {
  readonly price: string;
  readonly size: string;
}

export interface LiveTrade {
  readonly id: string;
  readonly price: string;
  readonly size: string;
  readonly side: string;
  readonly timeMs: number;
}

export type FeedState = "connecting" | "live" | "resyncing" | "offline";

export interface FeedSnapshot {
  readonly state: FeedState;
  readonly bids: readonly Level[];
  readonly asks: readonly Level[];
  readonly seeded: boolean;
  readonly tickSize: string | null;
  readonly lastTradePrice: string | null;
  /** Trades seen on the socket since it was opened, newest first. */
  readonly trades: readonly LiveTrade[];
  /** Book messages applied since the page opened, and how often a gap forced a re-seed. */
  readonly updates: number;
  readonly reseeds: number;
}

export const pingIntervalMs = 10_000;
export const heartbeatTimeoutMs = 30_000;
export const backoffMsBase = 500;
export const backoffMsMax = 10_000;
/** Messages held for the next frame at most; past it the socket is dropped and re-seeded. */
export const queuedMessagesMax = 10_000;
export const liveTradesMax = 50;
/** Performance entries: one measure per painted batch (first message's arrival → after the render). */
export const bookFrameMeasure = "predex:book-frame";
export const bookFrameMeasuresMax = 500;

class AssetBook {
  readonly bids = new Map<string, string>();
  readonly asks = new Map<string, string>();
  seeded = false;
  tickSize: string | null = null;
  lastTradePrice: string | null = null;

  seed(bids: readonly Level[], asks: readonly Level[]): void {
    this.bids.clear();
    this.asks.clear();
    for (const level of bids) this.bids.set(level.price, level.size);
    for (const level of asks) this.asks.set(level.price, level.size);
    this.seeded = true;
  }

  set(side: string, price: string, size: string): void {
    const levels = side === "BUY" ? this.bids : this.asks;
    if (Number(size) === 0) levels.delete(price);
    else levels.set(price, size);
  }

  sorted(): { bids: Level[]; asks: Level[] } {
    const list = (levels: Map<string, string>, descending: boolean) =>
      [...levels]
        .map(([price, size]) => ({ price, size }))
        .sort((a, b) => (descending ? Number(b.price) - Number(a.price) : Number(a.price) - Number(b.price)));
    return { bids: list(this.bids, true), asks: list(this.asks, false) };
  }

  /** The hash the server puts on `book` and `price_change` (src/realtime/book-hash.ts). */
  hash(): string {
    const { bids, asks } = this.sorted();
    const side = (levels: Level[]) => levels.map((level) => `${level.price}:${level.size}`).join(",");
    return fnv1a64(`${side(bids)}|${side(asks)}`);
  }
}

/** A socket opened while the page still loads the market (see prewarmMarketSocket). */
let prewarmed: WebSocket | undefined;

export function marketSocketUrl(): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws/market`;
}

/**
 * Opens the /ws/market connection at once, in parallel with the page's first requests; the first
 * MarketFeed takes it over (its handshake is the slowest step before the first book).
 */
export function prewarmMarketSocket(): void {
  if (prewarmed === undefined) prewarmed = new WebSocket(marketSocketUrl());
}

/** Closes a prewarmed socket nobody took (a market priced without a book). */
export function dropPrewarmedSocket(): void {
  prewarmed?.close();
  prewarmed = undefined;
}

function takePrewarmed(url: string): WebSocket | undefined {
  const socket = prewarmed;
  prewarmed = undefined;
  if (socket === undefined) return undefined;
  if (
    socket.url === url &&
    (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN)
  )
    return socket;
  socket.close();
  return undefined;
}

interface Message {
  readonly event_type?: string;
  readonly [field: string]: unknown;
}

export class MarketFeed {
  readonly #url: string;
  readonly #assetId: string;
  readonly #onChange: (snapshot: FeedSnapshot) => void;
  readonly #book = new AssetBook();
  #trades: LiveTrade[] = [];
  #state: FeedState = "connecting";
  #socket: WebSocket | undefined;
  #queue: Message[] = [];
  #frame = 0;
  /** When the oldest queued message arrived (performance.now()). */
  #queuedSinceMs = 0;
  #measures = 0;
  #attempt = 0;
  #retryTimer: number | undefined;
  #pingTimer: number | undefined;
  #silenceTimer: number | undefined;
  #stopped = false;
  #updates = 0;
  #reseeds = 0;

  constructor(options: { assetId: string; onChange: (snapshot: FeedSnapshot) => void; url?: string }) {
    this.#url = options.url ?? marketSocketUrl();
    this.#assetId = options.assetId;
    this.#onChange = options.onChange;
  }

  start(): void {
    this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#clearTimers();
    cancelAnimationFrame(this.#frame);
    this.#socket?.close();
  }

  snapshot(): FeedSnapshot {
    const { bids, asks } = this.#book.sorted();
    return {
      state: this.#state,
      bids,
      asks,
      seeded: this.#book.seeded,
      tickSize: this.#book.tickSize,
      lastTradePrice: this.#book.lastTradePrice,
      trades: this.#trades,
      updates: this.#updates,
      reseeds: this.#reseeds,
    };
  }

  #connect(): void {
    if (this.#stopped) return;
    this.#setState(this.#book.seeded ? "resyncing" : "connecting");
    const socket = takePrewarmed(this.#url) ?? new WebSocket(this.#url);
    this.#socket = socket;
    const onOpen = () => {
      this.#attempt = 0;
      socket.send(JSON.stringify({ type: "market", assets_ids: [this.#assetId] }));
      this.#pingTimer = window.setInterval(() => {
        if (socket.readyState === WebSocket.OPEN) socket.send("PING");
      }, pingIntervalMs);
      this.#armSilence(socket);
    };
    if (socket.readyState === WebSocket.OPEN) onOpen();
    else socket.onopen = onOpen;
    socket.onmessage = (event: MessageEvent) => {
      this.#armSilence(socket);
      if (typeof event.data !== "string" || event.data === "PONG") return;
      let message: unknown;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      // A publish round may send several events in one frame as a JSON array.
      for (const each of Array.isArray(message) ? message : [message]) this.#enqueue(each as Message);
    };
    socket.onclose = () => {
      if (this.#socket !== socket) return;
      this.#clearTimers();
      this.#queue = [];
      if (this.#stopped) return;
      this.#setState("offline");
      this.#attempt += 1;
      const delayMs = Math.min(backoffMsMax, backoffMsBase * 2 ** (this.#attempt - 1));
      this.#retryTimer = window.setTimeout(() => this.#connect(), delayMs * (0.5 + Math.random() / 2));
    };
  }

  #enqueue(message: Message): void {
    this.#queue.push(message);
    if (this.#queue.length > queuedMessagesMax) {
      this.#socket?.close();
      return;
    }
    if (this.#frame === 0) {
      this.#queuedSinceMs = performance.now();
      this.#frame = requestAnimationFrame(() => this.#flush());
    }
  }

  #flush(): void {
    this.#frame = 0;
    const messages = this.#queue;
    this.#queue = [];
    let changed = false;
    for (const message of messages) changed = this.#apply(message) || changed;
    if (!changed) return;
    this.#onChange(this.snapshot());
    // The page renders in a microtask queued by onChange, before this frame is painted; this one
    // runs after it, so the measure spans arrival → rendered, and the paint follows in this frame.
    const startMs = this.#queuedSinceMs;
    queueMicrotask(() => {
      if (this.#measures++ % bookFrameMeasuresMax === 0) performance.clearMeasures(bookFrameMeasure);
      performance.measure(bookFrameMeasure, { start: startMs, end: performance.now() });
    });
  }

  /** True when what the page shows changed. */
  #apply(message: Message): boolean {
    switch (message.event_type) {
      case "book": {
        if (message.asset_id !== this.#assetId) return false;
        this.#book.seed((message.bids as Level[]) ?? [], (message.asks as Level[]) ?? []);
        this.#book.tickSize = typeof message.tick_size === "string" ? message.tick_size : null;
        if (typeof message.last_trade_price === "string" && Number(message.last_trade_price) > 0)
          this.#book.lastTradePrice = message.last_trade_price;
        this.#updates += 1;
        this.#setState("live", false);
        return true;
      }
      case "price_change": {
        const changes = ((message.price_changes as Record<string, string>[]) ?? []).filter(
          (change) => change.asset_id === this.#assetId,
        );
        if (changes.length === 0 || !this.#book.seeded || this.#state === "resyncing") return false;
        for (const change of changes)
          this.#book.set(change.side ?? "", change.price ?? "", change.size ?? "0");
        this.#updates += 1;
        const expected = changes[changes.length - 1]?.hash;
        if (expected !== undefined && expected !== this.#book.hash()) this.#resubscribe();
        return true;
      }
      case "last_trade_price": {
        if (message.asset_id !== this.#assetId) return false;
        const trade: LiveTrade = {
          id: String(message.transaction_hash ?? ""),
          price: String(message.price),
          size: String(message.size),
          side: String(message.side),
          timeMs: Number(message.timestamp),
        };
        this.#book.lastTradePrice = trade.price;
        this.#trades = [trade, ...this.#trades].slice(0, liveTradesMax);
        return true;
      }
      default:
        return false;
    }
  }

  /** A gap: ask for the asset again; its `book` event re-seeds our copy. */
  #resubscribe(): void {
    this.#reseeds += 1;
    this.#setState("resyncing", false);
    const socket = this.#socket;
    if (socket?.readyState !== WebSocket.OPEN) return;
    socket.send(JSON.stringify({ operation: "unsubscribe", assets_ids: [this.#assetId] }));
    socket.send(JSON.stringify({ operation: "subscribe", assets_ids: [this.#assetId] }));
  }

  #setState(state: FeedState, notify = true): void {
    if (this.#state === state) return;
    this.#state = state;
    if (notify) this.#onChange(this.snapshot());
  }

  #clearTimers(): void {
    clearInterval(this.#pingTimer);
    clearTimeout(this.#silenceTimer);
  }

  #armSilence(socket: WebSocket): void {
    clearTimeout(this.#silenceTimer);
    this.#silenceTimer = window.setTimeout(() => socket.close(), heartbeatTimeoutMs);
  }
}
