// The session user's fills over /socket/user-trades (docs/realtime.md "/socket/user-trades"):
//
//   connecting ─open→ catchingUp ─GET /trades read→ live ─close / heartbeat timeout→ backoff …
//        ↑                                                                       │
//        └─────────────────────────────── timer ─────────────────────────────────┘
//                                         stop() or a refused handshake → closed (from any state)
//
// The channel is a stream, not a state: the server replays nothing on a (re)subscribe. Trades made
// while no socket was open are read with GET /trades, after the socket is open (so nothing falls
// between the read and the stream): newest first, back to the newest trade already seen, handed to
// `onMissedTrades` oldest first. Live messages that come during that read wait and follow it. A
// trade is keyed by `tradeId` and `role` (a user can hold both sides of one trade) and delivered
// once, whether it came live, in the read, or both.

import type { UserTradeMessage } from "../../contract/channels.js";
import type { Trade } from "../../contract/partner/trading.js";
import { socketPaths } from "../../contract/paths.js";
import type { PagedResult } from "../client.js";
import type { GatewayCredentials } from "../signer.js";
import { type BackoffPolicy, backoffDelayMs, type SdkLogger, silentLogger } from "./backoff.js";
import { LiveWaiters } from "./live-waiters.js";
import { type HandshakeError, SignedSocket, type SocketState } from "./signed-socket.js";

export type UserTradesState = "connecting" | "catchingUp" | "live" | "backoff" | "closed";

/** Trades read per GET /trades page while catching up (the operation's maximum page size). */
export const catchUpPageSize = 100;
/** Pages read at most in one catch-up (10,000 trades); beyond that `catchUpTruncated` counts it. */
export const catchUpPagesMax = 100;
/** Retries of the first connect's read of the newest trade. */
const learnBackoff: BackoffPolicy = { delayMsBase: 250, delayMsMax: 5_000 };
/** Keys of delivered trades remembered to drop a repeat (a trade both live and in the read). */
const deliveredKeysMax = 10_000;

export interface UserTradesSubscriptionOptions {
  /** The signed host, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  /** The session cookie, read at every attempt, e.g. `() => client.sessionCookie`. */
  readonly cookie: () => string | undefined;
  /** Registers again after a handshake refused for a dead session (SignedSocket's renewSession). */
  readonly renewSession?: () => Promise<void>;
  /**
   * GET /trades, e.g. `(query) => client.getTrades(query)`. With it, every reconnect reads the
   * trades made while no socket was open; without it, a client catches up by itself.
   */
  readonly getTrades?: (query: { page: number; pageSize: number }) => Promise<PagedResult<Trade>>;
  /**
   * The newest trade the caller already has (say, kept across a restart of its process): the first
   * connect then reads every later trade too. Without it the first connect starts from now.
   */
  readonly sinceTradeId?: string;
  readonly backoff?: BackoffPolicy;
  readonly heartbeatTimeoutMs?: number;
  readonly logger?: SdkLogger;
  /** Each live fill, in journal order. */
  readonly onTrade: (trade: UserTradeMessage) => void;
  /** Fills made while no socket was open (from GET /trades), oldest first, before the live ones. */
  readonly onMissedTrades?: (trades: Trade[]) => void;
  readonly onStateChange?: (state: UserTradesState) => void;
  readonly onFatal?: (error: HandshakeError) => void;
}

type TradeKey = `${string}:${string}`;
const keyOf = (trade: { tradeId: string; role: string }): TradeKey => `${trade.tradeId}:${trade.role}`;

function isTradeMessage(message: unknown): message is UserTradeMessage {
  if (typeof message !== "object" || message === null) return false;
  const { tradeId, role, seq } = message as Record<string, unknown>;
  return typeof tradeId === "string" && typeof role === "string" && typeof seq === "number";
}

export class UserTradesSubscription {
  readonly #options: UserTradesSubscriptionOptions;
  readonly #logger: SdkLogger;
  readonly #socket: SignedSocket;
  #state: UserTradesState = "connecting";
  /** The newest trade id seen (live, read, or the starting point); undefined until known. */
  #newestTradeId: bigint | undefined;
  /** Whether the newest trade id came with a delivered fill (else it is only a starting point). */
  #newestDelivered = false;
  #seq: number | undefined;
  readonly #delivered = new Set<TradeKey>();
  /** Live messages held while this connection's catch-up read runs. */
  #held: UserTradeMessage[] | undefined;
  /** Counts connections, so a catch-up of an older one never touches a newer one. */
  #connection = 0;
  readonly #waitingForLive = new LiveWaiters();
  /** Fills delivered live and from the catch-up reads. */
  liveCount = 0;
  missedCount = 0;
  /** Catch-ups that stopped at catchUpPagesMax pages: older missed fills were not read. */
  catchUpTruncated = 0;

  constructor(options: UserTradesSubscriptionOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    if (options.sinceTradeId !== undefined) this.#newestTradeId = BigInt(options.sinceTradeId);
    this.#socket = new SignedSocket({
      baseUrl: options.baseUrl,
      credentials: options.credentials,
      path: socketPaths.userTrades,
      cookie: options.cookie,
      ...(options.renewSession === undefined ? {} : { renewSession: options.renewSession }),
      ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
      ...(options.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: options.heartbeatTimeoutMs }),
      logger: this.#logger,
      onOpen: () => this.#onOpen(),
      onMessage: (message) => this.#onMessage(message),
      onStateChange: (state) => this.#onSocketState(state),
      onFatal: (error) => {
        this.#connection += 1;
        this.#setState("closed");
        options.onFatal?.(error);
      },
    });
  }

  get state(): UserTradesState {
    return this.#state;
  }

  /** `seq` of the newest live fill delivered (journal order; fills of one command share it). */
  get seq(): number | undefined {
    return this.#seq;
  }

  /** The newest trade id seen, as a string (keep it to pass as `sinceTradeId` after a restart). */
  get newestTradeId(): string | undefined {
    return this.#newestTradeId?.toString();
  }

  start(): void {
    this.#socket.start();
  }

  stop(): void {
    // A read still running belongs to no connection any more: it ends without delivering.
    this.#connection += 1;
    this.#socket.stop();
    this.#setState("closed");
  }

  /** Drops the connection as if the network had; the subscription reconnects and catches up. */
  dropConnection(): void {
    this.#socket.dropConnection();
  }

  /** Resolves once the stream is live: the socket is subscribed and any catch-up is done. */
  whenLive(timeoutMs = 10_000): Promise<void> {
    if (this.#state === "live") return Promise.resolve();
    return this.#waitingForLive.wait(timeoutMs, "user trades");
  }

  #onOpen(): void {
    this.#connection += 1;
    const connection = this.#connection;
    const getTrades = this.#options.getTrades;
    // The socket is subscribed from here on: a trade from now comes live, an older one is in GET /trades.
    if (getTrades === undefined) {
      this.#held = undefined;
      this.#setState("live");
      return;
    }
    this.#held = [];
    this.#setState("catchingUp");
    if (this.#newestTradeId === undefined) void this.#learnNewest(connection, getTrades);
    else void this.#catchUp(connection, getTrades);
  }

  /**
   * The first connect without `sinceTradeId`: nothing to catch up on, but a later reconnect needs a
   * starting point, the newest trade so far (0 when there is none: every later trade is missed then).
   * A failed read is tried again on the same connection, the live fills waiting meanwhile.
   */
  async #learnNewest(connection: number, getTrades: NonNullable<UserTradesSubscriptionOptions["getTrades"]>) {
    for (let attempt = 1; connection === this.#connection; attempt += 1) {
      try {
        const page = await getTrades({ page: 1, pageSize: 1 });
        if (connection !== this.#connection) return;
        this.#see(BigInt(page.records[0]?.tradeId ?? "0"), false);
        this.#goLive();
        return;
      } catch (error) {
        this.#logger.warn({ err: error }, "reading the newest trade failed; trying again");
        await new Promise((resolve) => setTimeout(resolve, backoffDelayMs(learnBackoff, attempt)));
      }
    }
  }

  async #catchUp(connection: number, getTrades: NonNullable<UserTradesSubscriptionOptions["getTrades"]>) {
    const since = this.#newestTradeId ?? 0n;
    // The newest trade seen live may have a side still to come (a user can hold both); one known
    // only as a starting point is had in full.
    const sinceIncluded = this.#newestDelivered;
    const missed = new Map<TradeKey, Trade>();
    try {
      let reachedSeen = false;
      for (let page = 1; page <= catchUpPagesMax && !reachedSeen; page += 1) {
        const result = await getTrades({ page, pageSize: catchUpPageSize });
        if (connection !== this.#connection) return;
        for (const trade of result.records) {
          const tradeId = BigInt(trade.tradeId);
          if (tradeId < since) reachedSeen = true;
          if (tradeId < since || (tradeId === since && !sinceIncluded)) continue;
          const key = keyOf(trade);
          if (!this.#delivered.has(key)) missed.set(key, trade);
        }
        if (result.records.length === 0 || page * catchUpPageSize >= result.total) reachedSeen = true;
      }
      if (!reachedSeen) {
        this.catchUpTruncated += 1;
        this.#logger.warn({ since: since.toString() }, "user trades catch-up stopped at its page limit");
      }
    } catch (error) {
      this.#catchUpFailed(connection, error);
      return;
    }
    // A fill that also came live during the read is delivered live, with its clientOrderId and seq.
    const heldKeys = new Set((this.#held ?? []).map(keyOf));
    const trades = [...missed.values()]
      .filter((trade) => !heldKeys.has(keyOf(trade)))
      .sort((a, b) => {
        const byId = BigInt(a.tradeId) - BigInt(b.tradeId);
        return byId !== 0n ? (byId < 0n ? -1 : 1) : a.role.localeCompare(b.role);
      });
    for (const trade of trades) {
      this.#remember(keyOf(trade));
      this.#see(BigInt(trade.tradeId), true);
    }
    this.missedCount += trades.length;
    if (trades.length > 0) this.#options.onMissedTrades?.(trades);
    this.#goLive();
  }

  /** A failed read cannot be skipped (fills would be lost): the connection is dropped and retried. */
  #catchUpFailed(connection: number, error: unknown): void {
    if (connection !== this.#connection) return;
    this.#logger.warn({ err: error }, "reading GET /trades to catch up failed; reconnecting");
    this.#held = undefined;
    this.#socket.dropConnection();
  }

  #goLive(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    this.#setState("live");
    for (const message of held) this.#deliver(message);
  }

  #onMessage(message: unknown): void {
    if (!isTradeMessage(message)) {
      this.#logger.warn({ message }, "ignoring a user-trades message that is not a trade");
      return;
    }
    if (this.#held !== undefined) this.#held.push(message);
    else this.#deliver(message);
  }

  #deliver(message: UserTradeMessage): void {
    const key = keyOf(message);
    if (this.#delivered.has(key)) return;
    this.#remember(key);
    this.#see(BigInt(message.tradeId), true);
    this.#seq = message.seq;
    this.liveCount += 1;
    this.#options.onTrade(message);
  }

  #remember(key: TradeKey): void {
    this.#delivered.add(key);
    // Sets iterate in insertion order: the oldest key goes first.
    if (this.#delivered.size > deliveredKeysMax) {
      const oldest = this.#delivered.values().next().value;
      if (oldest !== undefined) this.#delivered.delete(oldest);
    }
  }

  #see(tradeId: bigint, delivered: boolean): void {
    if (this.#newestTradeId === undefined || tradeId > this.#newestTradeId) {
      this.#newestTradeId = tradeId;
      this.#newestDelivered = delivered;
    } else if (tradeId === this.#newestTradeId && delivered) this.#newestDelivered = true;
  }

  #setState(state: UserTradesState): void {
    if (this.#state === state || this.#state === "closed") return;
    this.#state = state;
    this.#options.onStateChange?.(state);
    if (state === "live") this.#waitingForLive.release();
  }

  #onSocketState(state: SocketState): void {
    switch (state) {
      case "idle":
      case "open":
        break;
      case "connecting":
        this.#setState("connecting");
        break;
      case "backoff": {
        // Whatever this connection was reading is now for nothing; the next one reads again. Fills
        // held for a first read that never finished came after the subscription: they are
        // delivered, and the next connection catches up from them.
        this.#connection += 1;
        const held = this.#newestTradeId === undefined ? (this.#held ?? []) : [];
        this.#held = undefined;
        for (const message of held) this.#deliver(message);
        this.#setState("backoff");
        break;
      }
      case "closed":
        this.#setState("closed");
        break;
      default: {
        const unreachable: never = state;
        throw new Error(`unknown socket state ${String(unreachable)}`);
      }
    }
  }
}
