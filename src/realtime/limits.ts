// Every bound of the realtime layer, named with its unit last. Tests shorten the intervals through
// startPlatform's `realtime` option; production uses the defaults.

export interface RealtimeLimits {
  /**
   * Bytes a subscriber may have queued in its socket. A client that reads slower than we publish
   * crosses it and is disconnected, so one slow consumer can neither grow our memory nor hold up
   * the others.
   */
  readonly wsBufferedBytesMax: number;
  /** Open signed-channel sockets per partner (all signed channels together). */
  readonly socketsPerPartnerMax: number;
  /** Open public /ws/market sockets per client address. */
  readonly socketsPerIpMax: number;
  /** Assets one public socket may follow at once (Polymarket allows 500). */
  readonly subscriptionsPerSocketMax: number;
  /** Size of one message a public client may send (subscribe lists). */
  readonly inboundMessageBytesMax: number;
  /** How often a user channel re-checks its session (it is also checked before every send). */
  readonly sessionCheckIntervalMs: number;
  /**
   * Book changes are coalesced for at most this long under load: a quiet book publishes on the
   * next turn of the event loop, a busy one at most once per interval. This bounds messages per
   * subscriber per second whatever the order rate.
   */
  readonly publishIntervalMs: number;
  /** WebSocket ping frames keep idle connections alive and find dead ones. */
  readonly heartbeatIntervalMs: number;
  /** How often every option of an open market gets a price point (GET /prices-history). */
  readonly priceSampleIntervalMs: number;
}

export const defaultRealtimeLimits: RealtimeLimits = {
  wsBufferedBytesMax: 1024 * 1024,
  socketsPerPartnerMax: 1_000,
  socketsPerIpMax: 10_000,
  subscriptionsPerSocketMax: 500,
  inboundMessageBytesMax: 64 * 1024,
  sessionCheckIntervalMs: 30_000,
  publishIntervalMs: 20,
  heartbeatIntervalMs: 30_000,
  priceSampleIntervalMs: 60_000,
};

export function realtimeLimits(overrides: Partial<RealtimeLimits> = {}): RealtimeLimits {
  const limits = { ...defaultRealtimeLimits, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new Error(`realtime limit ${name} must be a positive integer`);
  }
  return limits;
}
