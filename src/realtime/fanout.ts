// Fan-out to many sockets: a payload is serialized once (a Buffer) and handed to every subscriber;
// ws frames it without copying. A subscriber whose socket already holds more than
// wsBufferedBytesMax unsent bytes is cut off at once: it cannot keep up, and waiting for it would
// grow our memory for nothing.

import { WebSocket } from "ws";

/** Close codes the realtime layer uses (docs/realtime.md). */
export const closeCodes = {
  goingAway: 1001,
  policyViolation: 1008,
  upstreamUnavailable: 1011,
  /** RFC 6455 "service restart": reconnect and re-seed (the node's state was reloaded). */
  serviceRestart: 1012,
} as const;
export const upstreamUnavailableReason = "upstream unavailable";
export const stateReloadedReason = "service restart: reconnect and re-seed";

/**
 * A text frame built once for all its subscribers. A server's frames are not masked (RFC 6455
 * §5.1), so the same bytes go to every socket: the header is made once per message, not per send.
 */
export function textFrame(payload: Buffer): Buffer {
  const length = payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([0x81, length]);
  } else if (length < 65_536) {
    header = Buffer.from([0x81, 126, length >> 8, length & 0xff]);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x81;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

/**
 * The parts of a ws socket the pre-framed path relies on (ws 8: `_socket`, `_sender._state`). ws has
 * no public way to send bytes that are already a frame; test/realtime/ws-internals.test.ts pins the
 * ws version and checks these on a live socket, and docs/performance.md ("Pre-framed writes") shows
 * what the path saves against ws's public send.
 */
interface WsInternals {
  readonly _socket?: { write(chunk: Buffer): boolean };
  readonly _sender?: { readonly _state?: number };
}

/**
 * Plain counters for the operator's metrics (src/metrics reads them when scraped): a number
 * incremented here costs nothing on the publishing path, where a metric library call would.
 */
export interface SocketStats {
  opened: number;
  closed: number;
  messagesSent: number;
  /** Messages not sent because the subscriber had gone or was being cut off. */
  messagesDropped: number;
  /** Subscribers cut off for reading slower than we publish (wsBufferedBytesMax). */
  slowConsumerCloses: number;
}

export function newSocketStats(): SocketStats {
  return { opened: 0, closed: 0, messagesSent: 0, messagesDropped: 0, slowConsumerCloses: 0 };
}

let preFramedWrites = true;

/**
 * Turns the pre-framed path off (true: on, the default). Off, every message goes through ws's
 * public `send`; bench:ws uses it (BENCH_WS_PUBLIC_SEND=1) to measure what the path saves.
 */
export function setPreFramedWrites(enabled: boolean): void {
  preFramedWrites = enabled;
}

export class Subscriber {
  readonly socket: WebSocket;
  readonly stats: SocketStats;
  readonly #bufferedBytesMax: number;
  #dropped = false;

  constructor(socket: WebSocket, bufferedBytesMax: number, stats: SocketStats = newSocketStats()) {
    this.socket = socket;
    this.#bufferedBytesMax = bufferedBytesMax;
    this.stats = stats;
    // `closed` is counted where the socket's close is already awaited (RealtimeHub.track).
    stats.opened += 1;
  }

  get open(): boolean {
    return !this.#dropped && this.socket.readyState === WebSocket.OPEN;
  }

  /** Queues one text frame; returns false if the subscriber is gone or was just cut off. */
  send(payload: Buffer): boolean {
    if (!this.#admits(payload)) return false;
    this.socket.send(payload, { binary: false });
    this.stats.messagesSent += 1;
    return true;
  }

  /**
   * Sends one message like `send` and resolves once ws has handed it to the TCP socket (false if
   * it was not sent or the write failed). A big message sent in parts (a user channel's snapshot)
   * waits for each part, so the parts together never count against wsBufferedBytesMax.
   */
  sendWritten(payload: Buffer): Promise<boolean> {
    if (!this.#admits(payload)) return Promise.resolve(false);
    this.stats.messagesSent += 1;
    return new Promise((resolve) =>
      this.socket.send(payload, { binary: false }, (error) => resolve(error === undefined || error === null)),
    );
  }

  /** Whether one more message may be queued; cuts off a subscriber that is too far behind. */
  #admits(payload: Buffer): boolean {
    if (!this.open) {
      this.stats.messagesDropped += 1;
      return false;
    }
    if (this.socket.bufferedAmount + payload.length > this.#bufferedBytesMax) {
      // A close frame would wait behind the backlog it is meant to end; terminate frees it now.
      this.#cutOff(1);
      return false;
    }
    return true;
  }

  /**
   * Sends frames made by textFrame (one or several messages, concatenated). When ws's sender is
   * idle (no compression, nothing queued) they go to the TCP socket in one write, as ws itself
   * would write them; otherwise ws frames each payload.
   */
  sendFrames(frames: Buffer, payloads: readonly Buffer[]): boolean {
    if (!this.open) {
      this.stats.messagesDropped += payloads.length;
      return false;
    }
    if (this.socket.bufferedAmount + frames.length > this.#bufferedBytesMax) {
      this.#cutOff(payloads.length);
      return false;
    }
    const internals = this.socket as unknown as WsInternals;
    if (preFramedWrites && internals._socket !== undefined && internals._sender?._state === 0)
      internals._socket.write(frames);
    else for (const payload of payloads) this.socket.send(payload, { binary: false });
    this.stats.messagesSent += payloads.length;
    return true;
  }

  #cutOff(messagesDropped: number): void {
    this.#dropped = true;
    this.stats.messagesDropped += messagesDropped;
    this.stats.slowConsumerCloses += 1;
    this.socket.terminate();
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.close(code, reason);
    }
  }
}

/** Subscribers by topic key. `publish` builds the payload only when someone listens. */
export class Topics<Key> {
  readonly #byKey = new Map<Key, Set<Subscriber>>();

  add(key: Key, subscriber: Subscriber): void {
    let set = this.#byKey.get(key);
    if (set === undefined) {
      set = new Set();
      this.#byKey.set(key, set);
    }
    set.add(subscriber);
  }

  remove(key: Key, subscriber: Subscriber): void {
    const set = this.#byKey.get(key);
    if (set === undefined) return;
    set.delete(subscriber);
    if (set.size === 0) this.#byKey.delete(key);
  }

  has(key: Key): boolean {
    return this.#byKey.has(key);
  }

  publish(key: Key, build: () => Buffer): void {
    const set = this.#byKey.get(key);
    if (set === undefined) return;
    broadcast(set, build());
  }

  /**
   * Renders a publish round's messages for one key's listeners (only if it has any) and sends them
   * together: one write per subscriber, however many messages the round produced (none: no write).
   */
  publishRendered(key: Key, render: () => readonly Buffer[]): void {
    const set = this.#byKey.get(key);
    if (set === undefined) return;
    const payloads = render();
    if (payloads.length === 0) return;
    const frames = Buffer.concat(payloads.map(textFrame));
    for (const subscriber of set) subscriber.sendFrames(frames, payloads);
  }
}

/** One payload to many sockets, framed once. */
export function broadcast(subscribers: Iterable<Subscriber>, payload: Buffer): void {
  const frame = textFrame(payload);
  const payloads = [payload];
  for (const subscriber of subscribers) subscriber.sendFrames(frame, payloads);
}
