// A WebSocket to one channel of the signed host, as an explicit state machine:
//
//   idle ─start()→ connecting ─101→ open ─close/heartbeat timeout→ backoff ─timer→ connecting …
//                      │ 4xx handshake (not retryable)                 ↑ 5xx / network / 1011
//                      └────────────→ closed ←─stop()── any state
//
// Every attempt signs a fresh upgrade (a signed GET with a fresh nonce; on user channels the cookie
// is signed too).
// A heartbeat timeout terminates a socket that has gone quiet (no message and no ping), and the
// owner's onOpen hook runs after every (re)connect so it can re-seed.

import { WebSocket } from "ws";
import { type GatewayCredentials, type QueryParams, signWebSocketUpgrade } from "../signer.js";
import {
  type BackoffPolicy,
  backoffDelayMs,
  defaultBackoffPolicy,
  type SdkLogger,
  silentLogger,
} from "./backoff.js";

export type SocketState = "idle" | "connecting" | "open" | "backoff" | "closed";

/** A refused handshake: the HTTP status and body the server answered instead of 101. */
export class HandshakeError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`WebSocket handshake refused: ${status} ${body}`);
    this.name = "HandshakeError";
  }

  /** 5xx and 429 may pass; a bad signature, key, session or query will not fix itself. */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 429;
  }
}

export interface SignedSocketOptions {
  /** The signed host, e.g. `http://127.0.0.1:8080` (ws:// or wss:// is derived). */
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  readonly path: string;
  readonly query?: QueryParams;
  /** The session cookie for user channels, read at every attempt (it may have been renewed). */
  readonly cookie?: () => string | undefined;
  /**
   * Spec 000 "Recovery" for a dead session (401/1401 at the handshake): register again, then retry
   * once. E.g. `() => client.register(registration).then(() => undefined)`; the new cookie is then
   * read through `cookie`.
   */
  readonly renewSession?: () => Promise<void>;
  /** Sign a fresh `x-ca-nonce` into every handshake (default true), so none can be replayed. */
  readonly nonces?: boolean;
  readonly backoff?: BackoffPolicy;
  /** No message and no ping for this long: the socket is presumed dead and replaced. */
  readonly heartbeatTimeoutMs?: number;
  readonly logger?: SdkLogger;
  readonly onMessage: (message: unknown) => void;
  /** After every successful (re)connect. */
  readonly onOpen?: () => void;
  readonly onStateChange?: (state: SocketState) => void;
  /** The socket stopped for good: a refused handshake that retrying cannot fix. */
  readonly onFatal?: (error: HandshakeError) => void;
  /** Each close, with its code and reason (1011 `upstream unavailable`, …). */
  readonly onClose?: (code: number, reason: string) => void;
}

export const defaultHeartbeatTimeoutMs = 45_000;

export class SignedSocket {
  readonly #options: SignedSocketOptions;
  readonly #logger: SdkLogger;
  #state: SocketState = "idle";
  #socket: WebSocket | undefined;
  #attempt = 0;
  /** A renewal was tried since the last successful open: a second 1401 is final. */
  #renewed = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(options: SignedSocketOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  get state(): SocketState {
    return this.#state;
  }

  start(): void {
    if (this.#state !== "idle") return;
    this.#connect();
  }

  stop(): void {
    this.#setState("closed");
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#heartbeatTimer);
    this.#socket?.terminate();
    this.#socket = undefined;
  }

  /** Drops the current connection as if the network had; the usual reconnect follows. */
  dropConnection(): void {
    this.#socket?.terminate();
  }

  #setState(state: SocketState): void {
    if (this.#state === state || this.#state === "closed") return;
    this.#state = state;
    this.#options.onStateChange?.(state);
  }

  #connect(): void {
    if (this.#state === "closed") return;
    this.#setState("connecting");
    const cookie = this.#options.cookie?.();
    const signed = signWebSocketUpgrade(this.#options.credentials, {
      path: this.#options.path,
      ...(this.#options.query === undefined ? {} : { query: this.#options.query }),
      ...(cookie === undefined ? {} : { cookie }),
      ...(this.#options.nonces === false ? { nonce: false } : {}),
    });
    const url = new URL(signed.pathAndQuery, this.#options.baseUrl.replace(/^http/, "ws"));
    const socket = new WebSocket(url, { headers: signed.headers });
    this.#socket = socket;
    let refused = false;

    socket.on("unexpected-response", (_request, response) => {
      refused = true;
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      response.on("end", () => {
        const error = new HandshakeError(response.statusCode ?? 0, body);
        socket.terminate();
        if (error.status === 401 && body.includes("Invalid or expired session") && this.#canRenew()) {
          this.#renewed = true;
          this.#options.renewSession!().then(
            () => this.#connect(),
            (renewError: unknown) => {
              this.#logger.error({ err: renewError }, "renewing the session failed");
              this.stop();
              this.#options.onFatal?.(error);
            },
          );
        } else if (error.retryable) this.#scheduleReconnect(error.message);
        else {
          this.#logger.error({ status: error.status, body }, "WebSocket handshake refused");
          this.stop();
          this.#options.onFatal?.(error);
        }
      });
    });
    socket.on("open", () => {
      this.#attempt = 0;
      this.#renewed = false;
      this.#setState("open");
      this.#armHeartbeat();
      this.#options.onOpen?.();
    });
    socket.on("ping", () => this.#armHeartbeat());
    socket.on("message", (data) => {
      this.#armHeartbeat();
      let message: unknown;
      try {
        message = JSON.parse(String(data));
      } catch {
        this.#logger.warn({ data: String(data).slice(0, 200) }, "ignoring a message that is not JSON");
        return;
      }
      this.#options.onMessage(message);
    });
    socket.on("error", (error) => this.#logger.debug({ err: error }, "WebSocket error"));
    socket.on("close", (code, reason) => {
      if (this.#socket !== socket) return;
      clearTimeout(this.#heartbeatTimer);
      this.#options.onClose?.(code, reason.toString("utf8"));
      if (!refused) this.#scheduleReconnect(`closed ${code} ${reason.toString("utf8")}`);
    });
  }

  #canRenew(): boolean {
    return this.#options.renewSession !== undefined && !this.#renewed && this.#state !== "closed";
  }

  #armHeartbeat(): void {
    clearTimeout(this.#heartbeatTimer);
    const socket = this.#socket;
    this.#heartbeatTimer = setTimeout(() => {
      this.#logger.warn({}, "WebSocket heartbeat timed out; reconnecting");
      socket?.terminate();
    }, this.#options.heartbeatTimeoutMs ?? defaultHeartbeatTimeoutMs);
  }

  #scheduleReconnect(why: string): void {
    if (this.#state === "closed" || this.#state === "backoff") return;
    this.#attempt += 1;
    const delayMs = backoffDelayMs(this.#options.backoff ?? defaultBackoffPolicy, this.#attempt);
    this.#logger.debug({ why, delayMs, attempt: this.#attempt }, "WebSocket reconnecting");
    this.#setState("backoff");
    this.#retryTimer = setTimeout(() => this.#connect(), delayMs);
  }
}
