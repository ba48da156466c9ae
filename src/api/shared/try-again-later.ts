// The expected conditions in which the platform did nothing and the caller should come back later:
// the engine's queue is full (overload) or the engine is not taking commands (shutdown in
// progress). Each surface answers them in its own vocabulary (502/2002 on the signed host, 503 on
// the legacy one, both with Retry-After), never as a 500, and logs one line per episode instead of
// a stack per request: under overload, logging per request would only add to the load.

import type { FastifyInstance } from "fastify";
import { EngineOverloadedError, EngineStoppedError } from "../../engine/errors.js";

export interface TryAgainLater {
  readonly reason: "overloaded" | "stopped";
  /** The Retry-After header, in whole seconds. */
  readonly retryAfterSeconds: number;
  readonly detail: string;
}

/** A full queue drains in milliseconds; a second is the smallest Retry-After HTTP can say. */
export const overloadedRetryAfterSeconds = 1;
/** A stopping engine comes back after a restart (or another node takes over). */
export const stoppedRetryAfterSeconds = 5;
/** An episode ends after this long without another refusal; the next refusal starts a new one. */
export const episodeQuietMs = 10_000;

/** Whether `error` is one of the "nothing was done, try again later" conditions. */
export function tryAgainLaterOf(error: unknown): TryAgainLater | undefined {
  if (error instanceof EngineOverloadedError) {
    return { reason: "overloaded", retryAfterSeconds: overloadedRetryAfterSeconds, detail: error.message };
  }
  // A fatal engine failure also stops the engine, but the request that met it may or may not have
  // been written: that one stays a 500. A later request meets EngineStoppedError: nothing was done.
  if (error instanceof EngineStoppedError) {
    return { reason: "stopped", retryAfterSeconds: stoppedRetryAfterSeconds, detail: error.message };
  }
  return undefined;
}

interface Episode {
  readonly reason: TryAgainLater["reason"];
  readonly startedAtMs: number;
  lastAtMs: number;
  refusals: number;
}

const episodes = new WeakMap<FastifyInstance, Map<TryAgainLater["reason"], Episode>>();

/**
 * Counts a refusal in the surface's current episode of this kind; logs a warning when the episode
 * starts (and says how many requests the previous one refused), nothing otherwise.
 */
export function noteTryAgainLater(app: FastifyInstance, condition: TryAgainLater): void {
  const nowMs = app.platform?.nowMs() ?? Date.now();
  let byReason = episodes.get(app);
  if (byReason === undefined) {
    byReason = new Map();
    episodes.set(app, byReason);
  }
  const current = byReason.get(condition.reason);
  if (current !== undefined && nowMs - current.lastAtMs < episodeQuietMs) {
    current.lastAtMs = nowMs;
    current.refusals += 1;
    return;
  }
  byReason.set(condition.reason, {
    reason: condition.reason,
    startedAtMs: nowMs,
    lastAtMs: nowMs,
    refusals: 1,
  });
  app.log.warn(
    {
      reason: condition.reason,
      detail: condition.detail,
      retryAfterSeconds: condition.retryAfterSeconds,
      ...(current === undefined
        ? {}
        : {
            previousEpisode: {
              refusals: current.refusals,
              durationMs: current.lastAtMs - current.startedAtMs,
            },
          }),
    },
    condition.reason === "overloaded"
      ? "engine overloaded: refusing requests with try-again-later until it drains (logged once per episode)"
      : "engine not taking commands: refusing requests with try-again-later (logged once per episode)",
  );
}
