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
} as const;
export const upstreamUnavailableReason = "upstream unavailable";

export class Subscriber {
  readonly socket: WebSocket;
  readonly #bufferedBytesMax: number;
  #dropped = false;

  constructor(socket: WebSocket, bufferedBytesMax: number) {
    this.socket = socket;
    this.#bufferedBytesMax = bufferedBytesMax;
  }

  get open(): boolean {
    return !this.#dropped && this.socket.readyState === WebSocket.OPEN;
  }

  /** Queues one text frame; returns false if the subscriber is gone or was just cut off. */
  send(payload: Buffer): boolean {
    if (!this.open) return false;
    if (this.socket.bufferedAmount + payload.length > this.#bufferedBytesMax) {
      // A close frame would wait behind the backlog it is meant to end; terminate frees it now.
      this.#dropped = true;
      this.socket.terminate();
      return false;
    }
    this.socket.send(payload, { binary: false });
    return true;
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
    const payload = build();
    for (const subscriber of set) subscriber.send(payload);
  }

  /** Builds one payload per key and publishes each only if that key has listeners. */
  publishMany(key: Key, builds: readonly (() => Buffer)[]): void {
    const set = this.#byKey.get(key);
    if (set === undefined) return;
    for (const build of builds) {
      const payload = build();
      for (const subscriber of set) subscriber.send(payload);
    }
  }
}
