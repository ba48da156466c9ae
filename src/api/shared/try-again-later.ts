// The expected conditions in which a request could not be done now, each with what happened to it:
// - nothing was done (send it again later, POST included): the engine's queue is full (overload),
//   the engine is not taking commands (shutdown, no leader), or the database cannot be reached and
//   the request's write never committed;
// - the outcome is unknown (reconcile, or send it again only with the same idempotency key): the
//   engine took the command and no answer came (EngineOutcomeUnknownError), the engine failed while
//   writing its batch (EngineFatalError, unless the store says that commit never happened), or the
//   database connection broke while the request's commit was in flight.
// Each surface answers them in its own vocabulary, once, in its error mapping (signed host: 502/2002
// or 504/2001; legacy: 503 `service temporarily unavailable` or 503 `request timed out`; all with
// Retry-After), never as a 500, and logs one line per episode instead of a stack per request: under
// overload or an outage, logging per request would only add to the load.

import type { FastifyInstance } from "fastify";
import {
  EngineFatalError,
  EngineOutcomeUnknownError,
  EngineOverloadedError,
  EngineStoppedError,
} from "../../engine/errors.js";
import { databaseFaultOf } from "../../store/database-faults.js";

export interface TryAgainLater {
  /** What became of the request: nothing (safe to send again), or nobody can tell yet. */
  readonly outcome: "nothing-done" | "unknown";
  readonly reason: "overloaded" | "stopped" | "no-answer" | "failed" | "database";
  /** The Retry-After header, in whole seconds. */
  readonly retryAfterSeconds: number;
  readonly detail: string;
}

/** A full queue drains in milliseconds; a second is the smallest Retry-After HTTP can say. */
export const overloadedRetryAfterSeconds = 1;
/** A stopping engine comes back after a restart (or another node takes over). */
export const stoppedRetryAfterSeconds = 5;
/** A database restart or a pool's reconnect takes seconds; a failover somewhat more. */
export const databaseRetryAfterSeconds = 2;
/** An episode ends after this long without another refusal; the next refusal starts a new one. */
export const episodeQuietMs = 10_000;

/** Whether `error` is one of the "not now" conditions, and what became of the request. */
export function tryAgainLaterOf(error: unknown): TryAgainLater | undefined {
  if (error instanceof EngineOverloadedError) {
    return {
      outcome: "nothing-done",
      reason: "overloaded",
      retryAfterSeconds: overloadedRetryAfterSeconds,
      detail: error.message,
    };
  }
  if (error instanceof EngineStoppedError) {
    return {
      outcome: "nothing-done",
      reason: "stopped",
      retryAfterSeconds: stoppedRetryAfterSeconds,
      detail: error.message,
    };
  }
  if (error instanceof EngineOutcomeUnknownError) {
    return {
      outcome: "unknown",
      reason: "no-answer",
      retryAfterSeconds: stoppedRetryAfterSeconds,
      detail: error.message,
    };
  }
  if (error instanceof EngineFatalError) {
    // The command's batch failed to commit: never written when the store says the commit never
    // happened (a refused connection, a busy database), else perhaps written.
    const neverWritten = databaseFaultOf(error.cause)?.outcome === "nothing-done";
    return {
      outcome: neverWritten ? "nothing-done" : "unknown",
      reason: "failed",
      retryAfterSeconds: stoppedRetryAfterSeconds,
      detail: error.message,
    };
  }
  const fault = databaseFaultOf(error);
  if (fault !== undefined) {
    return {
      outcome: fault.outcome,
      reason: "database",
      retryAfterSeconds: databaseRetryAfterSeconds,
      detail: fault.detail,
    };
  }
  return undefined;
}

/**
 * What the caller is told became of its request. A read (a GET or HEAD, a WebSocket handshake)
 * changes nothing the caller could reconcile: whatever broke under it, asking again is all there is
 * to do, so only a mutation can have an unknown outcome.
 */
export function answeredOutcome(
  tryAgainLater: TryAgainLater,
  request: { readonly read: boolean },
): TryAgainLater["outcome"] {
  return request.read ? "nothing-done" : tryAgainLater.outcome;
}

/** Whether an HTTP method only reads. */
export function isReadMethod(method: string): boolean {
  return method === "GET" || method === "HEAD";
}

interface Episode {
  readonly reason: TryAgainLater["reason"];
  readonly startedAtMs: number;
  lastAtMs: number;
  refusals: number;
}

const episodes = new WeakMap<FastifyInstance, Map<TryAgainLater["reason"], Episode>>();

const episodeMessages: Readonly<Record<TryAgainLater["reason"], string>> = {
  overloaded: "engine overloaded: refusing requests with try-again-later until it drains",
  stopped: "engine not taking commands: refusing requests with try-again-later",
  "no-answer": "engine took commands without answering: telling their callers the outcome is unknown",
  failed: "engine failed while writing a batch: telling its commands' callers what became of them",
  database: "database unreachable: answering requests with try-again-later",
};

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
      outcome: condition.outcome,
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
    `${episodeMessages[condition.reason]} (logged once per episode)`,
  );
}
