// Live views of the session user's balance, positions and open orders over the three user channels
// (docs/realtime.md "User channels: snapshot and seq"):
//
//   connecting ─open→ syncing ─snapshot (all parts)→ live ─close / heartbeat timeout→ backoff …
//        ↑                                                                 │
//        └──────────────────────────── timer ──────────────────────────────┘
//                                         stop() or a refused handshake → closed (from any state)
//
// Every (re)connect starts with a snapshot, which replaces the view whatever it held: what
// happened while the client was away (an order that filled, a position that changed) is in it.
// After it, a change is applied unless its `seq` is older than the view's (it is stale: the view
// already shows a later state). A snapshot is applied even when its `seq` is older than the view's:
// the node reconnected to may be a little behind, or its state was reloaded after a fork; the
// snapshot is then the truth that node serves, and the changes that follow bring it forward.

import type {
  UserBalance,
  UserInfoMessage,
  UserOpenOrdersChannelMessage,
  UserOpenOrdersSnapshot,
  UserOrder,
  UserOrderMessage,
  UserPosition,
  UserPositionMessage,
  UserPositionsChannelMessage,
  UserPositionsSnapshot,
} from "../../contract/channels.js";
import { socketPaths } from "../../contract/paths.js";
import type { GatewayCredentials, QueryParams } from "../signer.js";
import { type BackoffPolicy, type SdkLogger, silentLogger } from "./backoff.js";
import { LiveWaiters } from "./live-waiters.js";
import { type HandshakeError, SignedSocket, type SocketState } from "./signed-socket.js";

export type UserSubscriptionState = "connecting" | "syncing" | "live" | "backoff" | "closed";

export interface UserSubscriptionOptions<View> {
  /** The signed host, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  /** The session cookie, read at every attempt, e.g. `() => client.sessionCookie`. */
  readonly cookie: () => string | undefined;
  /** Registers again after a handshake refused for a dead session (SignedSocket's renewSession). */
  readonly renewSession?: () => Promise<void>;
  readonly backoff?: BackoffPolicy;
  readonly heartbeatTimeoutMs?: number;
  readonly logger?: SdkLogger;
  /** After each snapshot and each change applied. */
  readonly onUpdate?: (view: View) => void;
  /** Every message as it arrives, before it is applied (for logs and audits). */
  readonly onMessage?: (message: unknown) => void;
  readonly onStateChange?: (state: UserSubscriptionState) => void;
  readonly onFatal?: (error: HandshakeError) => void;
}

/** What every message of a user channel carries (UserChannelStamp, with a snapshot's parts). */
interface StampedMessage {
  readonly seq: number;
  readonly snapshot: boolean;
  readonly part?: number;
  readonly parts?: number;
}

function isStamped(message: unknown): message is StampedMessage {
  if (typeof message !== "object" || message === null) return false;
  const { seq, snapshot } = message as Record<string, unknown>;
  return typeof seq === "number" && Number.isSafeInteger(seq) && typeof snapshot === "boolean";
}

/** The state machine and the snapshot/seq rules shared by the three channels. */
abstract class UserChannelSubscription<Message extends StampedMessage, View> {
  readonly #options: UserSubscriptionOptions<View>;
  readonly #logger: SdkLogger;
  readonly #socket: SignedSocket;
  #state: UserSubscriptionState = "connecting";
  #seq: number | undefined;
  /** The parts of the snapshot being received on this connection. */
  #parts: Message[] | undefined;
  readonly #waitingForLive = new LiveWaiters();
  /** Snapshots applied (the first connect and every reconnect). */
  snapshotCount = 0;
  /** Changes ignored because the view already showed a later state. */
  staleIgnored = 0;

  protected constructor(options: UserSubscriptionOptions<View>, path: string, query?: QueryParams) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#socket = new SignedSocket({
      baseUrl: options.baseUrl,
      credentials: options.credentials,
      path,
      ...(query === undefined ? {} : { query }),
      cookie: options.cookie,
      ...(options.renewSession === undefined ? {} : { renewSession: options.renewSession }),
      ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
      ...(options.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: options.heartbeatTimeoutMs }),
      logger: this.#logger,
      onOpen: () => {
        // Until this connection's snapshot is in, the view is the one from before the reconnect.
        this.#parts = undefined;
        this.#setState("syncing");
      },
      onMessage: (message) => this.#onMessage(message),
      onStateChange: (state) => this.#onSocketState(state),
      onFatal: (error) => {
        this.#setState("closed");
        options.onFatal?.(error);
      },
    });
  }

  get state(): UserSubscriptionState {
    return this.#state;
  }

  /** The journal sequence the view shows; undefined before the first snapshot. */
  get seq(): number | undefined {
    return this.#seq;
  }

  start(): void {
    this.#socket.start();
  }

  stop(): void {
    this.#socket.stop();
    this.#setState("closed");
  }

  /** Drops the connection as if the network had; the subscription reconnects and resyncs. */
  dropConnection(): void {
    this.#socket.dropConnection();
  }

  /** Resolves once the view is live: this connection's snapshot has been applied. */
  whenLive(timeoutMs = 10_000): Promise<void> {
    if (this.#state === "live") return Promise.resolve();
    return this.#waitingForLive.wait(timeoutMs, "user channel");
  }

  protected abstract get view(): View;
  /** Replaces the whole view with a snapshot's parts. */
  protected abstract replaceView(parts: readonly Message[]): void;
  /** Applies one change. */
  protected abstract applyChange(change: Message): void;

  #onMessage(message: unknown): void {
    this.#options.onMessage?.(message);
    if (!isStamped(message)) {
      this.#logger.warn({ message }, "ignoring a user channel message without seq and snapshot");
      return;
    }
    const typed = message as Message;
    if (message.snapshot) this.#onSnapshotPart(typed);
    else this.#onChange(typed);
  }

  #onSnapshotPart(message: Message): void {
    const part = message.part ?? 1;
    const parts = message.parts ?? 1;
    if (part === 1) this.#parts = [];
    const received = this.#parts;
    if (
      received === undefined ||
      received.length !== part - 1 ||
      (part > 1 && received[0]!.seq !== message.seq)
    ) {
      // Parts are sent in order on one connection; anything else is a broken stream: start over.
      this.#logger.warn(
        { part, parts, seq: message.seq },
        "user channel snapshot out of order; reconnecting",
      );
      this.#parts = undefined;
      this.#socket.dropConnection();
      return;
    }
    received.push(message);
    if (part < parts) return;
    this.#parts = undefined;
    this.replaceView(received);
    this.#seq = message.seq;
    this.snapshotCount += 1;
    this.#setState("live");
    this.#options.onUpdate?.(this.view);
  }

  #onChange(message: Message): void {
    // The server sends a connection's snapshot first: a change before it cannot be placed.
    if (this.#state !== "live" || this.#seq === undefined) return;
    if (message.seq < this.#seq) {
      this.staleIgnored += 1;
      return;
    }
    this.applyChange(message);
    this.#seq = message.seq;
    this.#options.onUpdate?.(this.view);
  }

  #setState(state: UserSubscriptionState): void {
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
}

/** Drops the stamp, keeping the entity as the views hold it. */
function entityOf<Entity>(message: Entity & { seq?: number; snapshot?: boolean }): Entity {
  const { seq: _seq, snapshot: _snapshot, ...entity } = message;
  return entity as Entity;
}

/** `/socket/user-info`: the session user's USDT balance. */
export class UserBalanceSubscription extends UserChannelSubscription<
  UserInfoMessage,
  UserBalance | undefined
> {
  #balance: UserBalance | undefined;

  constructor(options: UserSubscriptionOptions<UserBalance | undefined>) {
    super(options, socketPaths.userInfo);
  }

  /** The balance as of `seq`; undefined before the first snapshot. */
  get balance(): UserBalance | undefined {
    return this.#balance;
  }

  protected get view(): UserBalance | undefined {
    return this.#balance;
  }

  protected replaceView(parts: readonly UserInfoMessage[]): void {
    this.#balance = entityOf(parts[parts.length - 1]!);
  }

  protected applyChange(change: UserInfoMessage): void {
    this.#balance = entityOf(change);
  }
}

export interface UserPositionsSubscriptionOptions
  extends UserSubscriptionOptions<ReadonlyMap<string, UserPosition>> {
  /** Only this market's positions; all when absent. */
  readonly marketId?: string;
  /** The session's user id, if the caller wants the server to check it. */
  readonly userId?: string;
}

/** `/socket/user-positions`: the session user's positions by `positionId`. */
export class UserPositionsSubscription extends UserChannelSubscription<
  UserPositionsChannelMessage,
  ReadonlyMap<string, UserPosition>
> {
  readonly #positions = new Map<string, UserPosition>();

  constructor(options: UserPositionsSubscriptionOptions) {
    const query: Record<string, string> = {};
    if (options.marketId !== undefined) query.marketId = options.marketId;
    if (options.userId !== undefined) query.userId = options.userId;
    super(options, socketPaths.userPositions, Object.keys(query).length === 0 ? undefined : query);
  }

  /** Every position as of `seq`, by positionId. */
  get positions(): ReadonlyMap<string, UserPosition> {
    return this.#positions;
  }

  protected get view(): ReadonlyMap<string, UserPosition> {
    return this.#positions;
  }

  protected replaceView(parts: readonly UserPositionsChannelMessage[]): void {
    this.#positions.clear();
    for (const part of parts as readonly UserPositionsSnapshot[])
      for (const position of part.positions) this.#positions.set(position.positionId, position);
  }

  protected applyChange(change: UserPositionsChannelMessage): void {
    const position = entityOf(change as UserPositionMessage);
    this.#positions.set(position.positionId, position);
  }
}

const openStatuses: ReadonlySet<UserOrder["status"]> = new Set(["OPEN", "PARTIALLY_FILLED"]);

/** `/socket/user-open-orders`: the session user's open orders by `orderId`; finished ones leave. */
export class UserOpenOrdersSubscription extends UserChannelSubscription<
  UserOpenOrdersChannelMessage,
  ReadonlyMap<string, UserOrder>
> {
  readonly #orders = new Map<string, UserOrder>();

  constructor(options: UserSubscriptionOptions<ReadonlyMap<string, UserOrder>>) {
    super(options, socketPaths.userOpenOrders);
  }

  /** Every open order as of `seq`, by orderId. */
  get orders(): ReadonlyMap<string, UserOrder> {
    return this.#orders;
  }

  protected get view(): ReadonlyMap<string, UserOrder> {
    return this.#orders;
  }

  protected replaceView(parts: readonly UserOpenOrdersChannelMessage[]): void {
    this.#orders.clear();
    for (const part of parts as readonly UserOpenOrdersSnapshot[])
      for (const order of part.orders) this.#orders.set(order.orderId, order);
  }

  protected applyChange(change: UserOpenOrdersChannelMessage): void {
    const order = entityOf(change as UserOrderMessage);
    if (openStatuses.has(order.status)) this.#orders.set(order.orderId, order);
    else this.#orders.delete(order.orderId);
  }
}
