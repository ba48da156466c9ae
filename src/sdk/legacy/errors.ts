// What can go wrong talking to the legacy listener, split as spec 001's retry policy splits it:
// 429, 500 and 503 may be retried (429 after `retryAfter`); 401 after re-authorizing; the rest not.
// Spec 001 has one 503 for two different things, which predex tells apart by `msg`: `service
// temporarily unavailable` (nothing was done: even a submit may be sent again) and `request timed
// out` (the outcome is unknown: a submit's result is checked first, spec 001 rule 1).

import { connectionNeverMade } from "../errors.js";

export abstract class LegacyError extends Error {
  /** True when sending the same request again may succeed (reads; a submit only after a 429 or 401). */
  abstract readonly retryable: boolean;
}

const retryableStatuses: ReadonlySet<number> = new Set([429, 500, 503]);

/** An answer in the legacy envelope: `code` mirrors the HTTP status, `data.errorCode` is the specific code. */
export class LegacyApiError extends LegacyError {
  override name = "LegacyApiError";
  readonly retryable: boolean;

  constructor(
    readonly status: number,
    readonly code: number,
    readonly msg: string,
    readonly data: Readonly<Record<string, unknown>> | null,
  ) {
    super(`${status} ${msg}`);
    this.retryable = retryableStatuses.has(status);
  }

  /** Spec 001's specific code (3009, 90003, …), or the HTTP status when the table has none. */
  get errorCode(): number | undefined {
    const value = this.data?.errorCode;
    return typeof value === "number" ? value : undefined;
  }

  /** Nothing was done (predex's 503 `service temporarily unavailable`): a submit may be sent again. */
  get nothingWasDone(): boolean {
    return this.status === 503 && this.msg === "service temporarily unavailable";
  }

  /** Seconds to wait before retrying a 429. */
  get retryAfterSeconds(): number | undefined {
    const value = this.data?.retryAfter;
    return typeof value === "number" ? value : undefined;
  }
}

/** No answer: connection refused or reset, or the timeout ran out. */
export class LegacyNetworkError extends LegacyError {
  override name = "LegacyNetworkError";
  readonly retryable = true;

  /** The connection was never made (refused, unknown host, no route): nothing was sent. */
  get nothingWasDone(): boolean {
    return connectionNeverMade(this);
  }
}

/**
 * A submit got no answer (or a 5xx): it may or may not have been queued. It is never retried
 * blindly (spec 001: a submission is not retried before the result is checked); the caller checks
 * its positions or activity before submitting again.
 */
export class SubmitOutcomeUnknownError extends LegacyError {
  override name = "SubmitOutcomeUnknownError";
  readonly retryable = false;

  constructor(override readonly cause: unknown) {
    super("The order submission may or may not have been queued; check before submitting again");
  }
}
