// A client for the public /ws/market (Polymarket's market channel): subscribes at connect, changes
// subscriptions later, sends a text PING every pingIntervalMs and expects something back within
// heartbeatTimeoutMs, and on any drop reconnects with capped backoff and subscribes again (each
// asset's `book` event then re-seeds the caller's view).
//
//   idle ─start()→ connecting ─open→ open ─close / silence→ backoff ─timer→ connecting …
//                                         stop() → closed (from any state)

import { WebSocket } from "ws";
import {
  type BackoffPolicy,
  backoffDelayMs,
  defaultBackoffPolicy,
  type SdkLogger,
  silentLogger,
} from "./backoff.js";

export type MarketSocketState = "idle" | "connecting" | "open" | "backoff" | "closed";

export interface MarketEvent {
  readonly event_type: string;
  readonly [field: string]: unknown;
}

export interface MarketSocketOptions {
  /** The public host, e.g. `http://127.0.0.1:8081`. */
  readonly baseUrl: string;
  readonly assetIds?: readonly string[];
  readonly pingIntervalMs?: number;
  readonly heartbeatTimeoutMs?: number;
  readonly backoff?: BackoffPolicy;
  readonly logger?: SdkLogger;
  readonly onEvent: (event: MarketEvent) => void;
  readonly onStateChange?: (state: MarketSocketState) => void;
  /** Server-side refusals of a message ({"error": …}). */
  readonly onError?: (message: string) => void;
}

export const marketPingIntervalMs = 10_000;

export class MarketSocket {
  readonly #options: MarketSocketOptions;
  readonly #logger: SdkLogger;
  readonly #assets: Set<string>;
  #state: MarketSocketState = "idle";
  #socket: WebSocket | undefined;
  #attempt = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #pingTimer: NodeJS.Timeout | undefined;
  #silenceTimer: NodeJS.Timeout | undefined;
  /** PONGs received; tests read it. */
  pongs = 0;

  constructor(options: MarketSocketOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#assets = new Set(options.assetIds ?? []);
  }

  get state(): MarketSocketState {
    return this.#state;
  }

  start(): void {
    if (this.#state === "idle") this.#connect();
  }

  stop(): void {
    this.#setState("closed");
    this.#clearTimers();
    clearTimeout(this.#retryTimer);
    this.#socket?.terminate();
  }

  subscribe(assetIds: readonly string[]): void {
    const added = assetIds.filter((id) => !this.#assets.has(id));
    for (const id of added) this.#assets.add(id);
    if (added.length > 0) this.#send({ assets_ids: added, operation: "subscribe" });
  }

  unsubscribe(assetIds: readonly string[]): void {
    const removed = assetIds.filter((id) => this.#assets.delete(id));
    if (removed.length > 0) this.#send({ assets_ids: removed, operation: "unsubscribe" });
  }

  /** Sends a text PING now (the server answers PONG). */
  ping(): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send("PING");
  }

  dropConnection(): void {
    this.#socket?.terminate();
  }

  #send(message: object): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }

  #setState(state: MarketSocketState): void {
    if (this.#state === state || this.#state === "closed") return;
    this.#state = state;
    this.#options.onStateChange?.(state);
  }

  #clearTimers(): void {
    clearInterval(this.#pingTimer);
    clearTimeout(this.#silenceTimer);
  }

  #connect(): void {
    if (this.#state === "closed") return;
    this.#setState("connecting");
    const socket = new WebSocket(new URL("/ws/market", this.#options.baseUrl.replace(/^http/, "ws")));
    this.#socket = socket;
    socket.on("open", () => {
      this.#attempt = 0;
      this.#setState("open");
      socket.send(JSON.stringify({ type: "market", assets_ids: [...this.#assets] }));
      this.#pingTimer = setInterval(() => this.ping(), this.#options.pingIntervalMs ?? marketPingIntervalMs);
      this.#armSilence();
    });
    socket.on("message", (data, isBinary) => {
      this.#armSilence();
      const text = isBinary ? "" : String(data);
      if (text === "PONG") {
        this.pongs += 1;
        return;
      }
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        this.#logger.warn({ text: text.slice(0, 200) }, "ignoring a market message that is not JSON");
        return;
      }
      const fields = message as Record<string, unknown>;
      if (typeof fields.error === "string") this.#options.onError?.(fields.error);
      else if (typeof fields.event_type === "string") this.#options.onEvent(fields as MarketEvent);
    });
    socket.on("error", (error) => this.#logger.debug({ err: error }, "market socket error"));
    socket.on("close", (code, reason) => {
      if (this.#socket !== socket) return;
      this.#clearTimers();
      if (this.#state === "closed") return;
      this.#attempt += 1;
      const delayMs = backoffDelayMs(this.#options.backoff ?? defaultBackoffPolicy, this.#attempt);
      this.#logger.debug({ code, reason: reason.toString("utf8"), delayMs }, "market socket reconnecting");
      this.#setState("backoff");
      this.#retryTimer = setTimeout(() => this.#connect(), delayMs);
    });
  }

  #armSilence(): void {
    clearTimeout(this.#silenceTimer);
    const socket = this.#socket;
    const timeoutMs =
      this.#options.heartbeatTimeoutMs ?? (this.#options.pingIntervalMs ?? marketPingIntervalMs) * 3;
    this.#silenceTimer = setTimeout(() => socket?.terminate(), timeoutMs);
  }
}
