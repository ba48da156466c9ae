// What can go wrong talking to predex, split the way the spec's Recovery table splits it:
// retryable (network, 500/502/504) or not (fix the request, the credentials or the session).

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
   * 502 with code 2002: the request never reached the exchange (predex answers it when its engine
   * is overloaded or stopping), so sending it again is safe even for a POST.
   */
  get nothingWasDone(): boolean {
    return this.status === 502 && this.code === 2002;
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

/** The request did not get an answer: connection refused or reset, or the timeout ran out. */
export class NetworkError extends PredexError {
  override name = "NetworkError";
  readonly retryable = true;
}
