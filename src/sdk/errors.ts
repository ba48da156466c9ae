// What can go wrong talking to predex, split the way the spec's Recovery table splits it:
// retryable (network, 500/502/504) or not (fix the request, the credentials or the session); and,
// for a retryable failure, what became of the request: nothing was done (502/2002, a connection
// refused: send it again, POST included) or nobody can tell yet (504/2001, 500, a lost answer:
// reconcile first, or send it again only with the same idempotency key, such as a clientOrderId).

export abstract class PredexError extends Error {
  /** True when sending the same request again may succeed (for idempotent requests only). */
  abstract readonly retryable: boolean;
}

const retryableStatuses: ReadonlySet<number> = new Set([500, 502, 504]);

/** A service answer with a business code: the JSON envelope, or a plain-text query error (code null). */
export class PredexApiError extends PredexError {
  override name = "PredexApiError";
  readonly retryable: boolean;

  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
    /** The Retry-After header in milliseconds, when the server sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.retryable = retryableStatuses.has(status);
  }

  /**
   * 502 with code 2002: nothing was done (predex answers it when its engine is overloaded or has no
   * leader, or its database cannot be reached, and the request wrote nothing), so sending it again
   * is safe even for a POST.
   */
  get nothingWasDone(): boolean {
    return this.status === 502 && this.code === 2002;
  }

  /**
   * The request may or may not have taken effect: 504 (predex: 2001, the engine took it and no
   * answer came in time, or the database went away while its commit was in flight), 500, or a 502
   * other than 2002. A mutation is sent again only with the same idempotency key; otherwise read
   * the state first (the spec: reconcile before retrying mutations).
   */
  get outcomeUnknown(): boolean {
    return this.retryable && !this.nothingWasDone;
  }

  /** A 1401 about the session: register again, then retry once. */
  get isSessionError(): boolean {
    return (
      this.code === 1401 &&
      (this.message === "unauthorized: Invalid or expired session" ||
        this.message === "unauthorized: Missing Cookie header")
    );
  }
}

/** 502/2002: nothing was done; the same request may be sent again, POST included (after Retry-After). */
export class PredexNothingDoneError extends PredexApiError {
  override name = "PredexNothingDoneError";
}

/**
 * 504/2001: the request may or may not have taken effect. Read the state (or send it again with the
 * same idempotency key, e.g. the order's clientOrderId, which returns the first order) before any
 * other attempt.
 */
export class PredexOutcomeUnknownError extends PredexApiError {
  override name = "PredexOutcomeUnknownError";
}

/** The class of a service error with this status and code. */
export function apiErrorClass(status: number, code: number | null): typeof PredexApiError {
  if (status === 502 && code === 2002) return PredexNothingDoneError;
  if (status === 504) return PredexOutcomeUnknownError;
  return PredexApiError;
}

/** The gateway refused the request: `Invalid Signature` (400) or `Invalid Key` (401). Never retried unchanged. */
export class GatewayError extends PredexError {
  override name = "GatewayError";
  readonly retryable = false;

  constructor(
    readonly status: number,
    message: string,
    /** The server's string-to-sign, newlines restored, when the gateway sent one. */
    readonly serverStringToSign: string | undefined,
    /** predex's `x-ca-error-reason`: which check failed (e.g. `date-skew`). */
    readonly reason: string | undefined,
  ) {
    super(message);
  }
}

/** Socket errors of a connection that was never made: the request was not sent. */
const notConnectedCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * Whether a failed request's cause (fetch's error chain) is a connection that was never made
 * (refused, unknown host, no route): nothing was sent, so nothing was done. Both SDK clients ask it.
 */
export function connectionNeverMade(error: Error): boolean {
  for (let cause = error.cause, depth = 0; cause !== undefined && depth < 4; depth++) {
    const code = (cause as { code?: unknown } | null)?.code;
    if (typeof code === "string" && notConnectedCodes.has(code)) return true;
    cause = (cause as { cause?: unknown } | null)?.cause;
  }
  return false;
}

/** The request did not get an answer: connection refused or reset, or the timeout ran out. */
export class NetworkError extends PredexError {
  override name = "NetworkError";
  readonly retryable = true;

  /** The connection was never made (refused, unknown host): nothing was sent, so nothing was done. */
  get nothingWasDone(): boolean {
    return connectionNeverMade(this);
  }

  /** Anything else (reset, timeout): the request may have reached the server and taken effect. */
  get outcomeUnknown(): boolean {
    return !this.nothingWasDone;
  }
}
