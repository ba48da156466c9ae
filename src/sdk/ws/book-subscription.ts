// A live local order book (spec 000 "Events" rule 3 and "Recovery"): subscribe to
// /socket/clob-price-update, seed from GET /orderbook/book, apply deltas by seq, re-seed on a gap
// and after every reconnect.
//
//   connecting ─open→ seeding ─seed read→ live ─gap→ seeding …
//        ↑                                  │ close / heartbeat timeout
//        └────────────── backoff ←──────────┘            stop() → closed (from any state)
//
// Deltas that arrive while the seed is being read are held and applied after it, in order; those
// the seed already contains are recognised by their seq and skipped.

import type { Book } from "../../contract/partner/trading.js";
import { socketPaths } from "../../contract/paths.js";
import type { GatewayCredentials } from "../signer.js";
import type { BackoffPolicy, SdkLogger } from "./backoff.js";
import { silentLogger } from "./backoff.js";
import { type BookDelta, type BookLevel, LocalBook } from "./local-book.js";
import { HandshakeError, SignedSocket, type SocketState } from "./signed-socket.js";

export type BookSubscriptionState = "connecting" | "seeding" | "live" | "backoff" | "closed";

export interface BookSubscriptionOptions {
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  readonly marketId: string;
  readonly outcomeId: string;
  /** The No option shows the book in No prices, as GET /orderbook/book does. */
  readonly optionId?: string;
  /** Reads the REST snapshot, e.g. `() => client.getBook({marketId, outcomeId})`. */
  readonly seed: () => Promise<Book>;
  readonly backoff?: BackoffPolicy;
  readonly heartbeatTimeoutMs?: number;
  readonly logger?: SdkLogger;
  readonly onUpdate?: (book: LocalBook) => void;
  readonly onStateChange?: (state: BookSubscriptionState) => void;
  readonly onFatal?: (error: HandshakeError) => void;
}

/** Deltas held while a seed is being read; more means the seed is hopelessly slow, so start over. */
export const heldDeltasMax = 100_000;

export class BookSubscription {
  readonly book = new LocalBook();
  readonly #options: BookSubscriptionOptions;
  readonly #logger: SdkLogger;
  readonly #socket: SignedSocket;
  #state: BookSubscriptionState = "connecting";
  #held: BookDelta[] = [];
  /** Bumped by every (re)seed, so a slow seed that was overtaken is ignored. */
  #seedGeneration = 0;
  /** How many times the book was seeded (first connect, reconnects, gaps). */
  seedCount = 0;

  constructor(options: BookSubscriptionOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#socket = new SignedSocket({
      baseUrl: options.baseUrl,
      credentials: options.credentials,
      path: socketPaths.clobPriceUpdate,
      query: {
        marketId: options.marketId,
        outcomeId: options.outcomeId,
        ...(options.optionId === undefined ? {} : { optionId: options.optionId }),
      },
      ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
      ...(options.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: options.heartbeatTimeoutMs }),
      logger: this.#logger,
      onOpen: () => this.#reseed(),
      onMessage: (message) => this.#onDelta(message as BookDelta),
      onStateChange: (state) => this.#onSocketState(state),
      onFatal: (error) => {
        this.#setState("closed");
        options.onFatal?.(error);
      },
    });
  }

  get state(): BookSubscriptionState {
    return this.#state;
  }

  start(): void {
    this.#socket.start();
  }

  stop(): void {
    this.#socket.stop();
    this.#setState("closed");
  }

  /** For tests and operators: drop the connection; the subscription reconnects and re-seeds. */
  dropConnection(): void {
    this.#socket.dropConnection();
  }

  /** Resolves once the book is live (seeded and applying deltas). */
  whenLive(timeoutMs = 10_000): Promise<void> {
    if (this.#state === "live") return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`book not live after ${timeoutMs} ms`)), timeoutMs);
      const previous = this.#onLive;
      this.#onLive = () => {
        previous?.();
        clearTimeout(timer);
        resolve();
      };
    });
  }

  #onLive: (() => void) | undefined;

  levels(): { bids: BookLevel[]; asks: BookLevel[] } {
    return this.book.levels();
  }

  #setState(state: BookSubscriptionState): void {
    if (this.#state === state || this.#state === "closed") return;
    this.#state = state;
    this.#options.onStateChange?.(state);
    if (state === "live") {
      const onLive = this.#onLive;
      this.#onLive = undefined;
      onLive?.();
    }
  }

  #onSocketState(state: SocketState): void {
    switch (state) {
      case "idle":
      case "open":
        break;
      case "connecting":
        this.#setState("connecting");
        break;
      case "backoff":
        this.#setState("backoff");
        break;
      case "closed":
        this.#setState("closed");
        break;
      default: {
        const unreachable: never = state;
        throw new Error(`unknown socket state ${String(unreachable)}`);
      }
    }
  }

  #reseed(): void {
    this.#setState("seeding");
    this.#held = [];
    this.seedCount += 1;
    const generation = ++this.#seedGeneration;
    this.#options.seed().then(
      (snapshot) => {
        if (generation !== this.#seedGeneration || this.#state !== "seeding") return;
        this.book.seed(snapshot);
        const held = this.#held;
        this.#held = [];
        this.#setState("live");
        for (const delta of held) if (!this.#apply(delta)) return;
        this.#options.onUpdate?.(this.book);
      },
      (error: unknown) => {
        if (generation !== this.#seedGeneration) return;
        this.#logger.warn({ err: error }, "seeding the book failed; reconnecting");
        this.#socket.dropConnection();
      },
    );
  }

  #onDelta(delta: BookDelta): void {
    if (this.#state === "seeding") {
      this.#held.push(delta);
      if (this.#held.length > heldDeltasMax) this.#socket.dropConnection();
      return;
    }
    if (this.#state !== "live") return;
    if (this.#apply(delta)) this.#options.onUpdate?.(this.book);
  }

  /** false when a gap started a re-seed. */
  #apply(delta: BookDelta): boolean {
    const result = this.book.apply(delta);
    if (result !== "gap") return true;
    this.#logger.warn({ seq: this.book.seq, prevSeq: delta.prevSeq }, "book gap; re-seeding");
    this.#reseed();
    return false;
  }
}

export { HandshakeError };
