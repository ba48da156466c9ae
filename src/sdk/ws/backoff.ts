// Capped exponential backoff with jitter for reconnects (spec 000 "Recovery": WebSocket close
// 1011 → reconnect with backoff).

export interface BackoffPolicy {
  readonly delayMsBase: number;
  readonly delayMsMax: number;
}

export const defaultBackoffPolicy: BackoffPolicy = { delayMsBase: 250, delayMsMax: 10_000 };

/** The wait before reconnect number `attempt` (1-based): half fixed, half random, so clients spread out. */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number): number {
  const ceilingMs = Math.min(policy.delayMsMax, policy.delayMsBase * 2 ** Math.max(0, attempt - 1));
  return ceilingMs / 2 + Math.random() * (ceilingMs / 2);
}

/** What the SDK's sockets log through; pino and console both fit. */
export interface SdkLogger {
  debug(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

export const silentLogger: SdkLogger = { debug() {}, warn() {}, error() {} };
