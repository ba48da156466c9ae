// The one place where the earlier interface (spec 001) turns problems into HTTP answers: its own
// error table, core rejections (src/core/errors.ts), and Fastify's own errors. No stack trace or
// internal message ever leaves this module.
//
// The rule (docs/decisions.md, "Legacy interface"): `code` always mirrors the HTTP status, as the
// spec's envelope says; the specific code of spec 001's tables travels in `data.errorCode`, and
// `msg` is that table's message. Where no table code applies, `data.errorCode` repeats the HTTP
// status, so a client can always switch on `data.errorCode`. The one exception is 429, whose
// `data` is exactly `{retryAfter, limit, window}` (DESIGN §8).

import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { ListenerLimits } from "../../config.js";
import { type Rejection, type RejectionCode, rejectionKind, rejectionMessage } from "../../core/errors.js";
import { atomsToNumber } from "../../core/money.js";
import type { ApplicationProblem } from "../../legacy/market-applications.js";
import type { OrderProblem } from "../../legacy/order-request.js";
import { bodyBytesMax } from "../partner/errors.js";
import type { ClientErrorAnswer, ClientErrorKind } from "../shared/listener-limits.js";
import type { RouteMethods } from "../shared/method-not-allowed.js";
import {
  answeredOutcome,
  isReadMethod,
  noteTryAgainLater,
  tryAgainLaterOf,
} from "../shared/try-again-later.js";
import { describeValidationError } from "../shared/validation-message.js";

export type LegacyStatus = 400 | 401 | 403 | 404 | 405 | 408 | 422 | 429 | 500 | 503;

export interface LegacyError {
  readonly status: LegacyStatus;
  readonly msg: string;
  /** `{errorCode, …details}` for every status but 429. */
  readonly data: Readonly<Record<string, unknown>>;
}

function legacyError(
  status: LegacyStatus,
  errorCode: number,
  msg: string,
  details: Readonly<Record<string, unknown>> = {},
): LegacyError {
  return { status, msg, data: { errorCode, ...details } };
}

/** Spec 001's error table, by the names the code uses; codes without a table entry repeat the status. */
export const legacyErrors = {
  // Validation and permissions.
  parameterError: legacyError(400, 400, "parameter error"),
  invalidToken: legacyError(401, 401, "invalid token / token has expired"),
  invalidApiKey: legacyError(401, 402, "invalid api key"),
  merchantMismatch: legacyError(401, 402, "merchantId does not belong to this API key"),
  invalidSignature: legacyError(401, 401, "invalid signature"),
  timestampOutsideWindow: legacyError(401, 401, "timestamp is outside the allowed window"),
  nonceReused: legacyError(401, 401, "nonce has already been used"),
  permissionDenied: legacyError(403, 403, "Permission denied"),
  invalidPrice: legacyError(400, 400, "Invalid price"),
  outcomeIdMissing: legacyError(400, 4001, "outcomeId is null"),
  // The monthly bill's own wording of a bad parameter (spec 001 "Per-endpoint error messages").
  invalidRequestParameters: legacyError(400, 400, "Invalid request parameters"),
  // Market applications (spec 001 point 7).
  duplicateApplication: legacyError(400, 4010, "Please do not submit duplicate applications"),
  notCreator: legacyError(403, 4011, "Non-creators cannot create markets"),
  similarMarket: legacyError(400, 4013, "There is similar market information"),
  liquidityTooLow: legacyError(400, 4035, "Liquidity cannot be less than 100"),
  weightsDoNotAddUp: legacyError(400, 4039, "The weights must add up to 1"),
  titleExists: legacyError(400, 4041, "A market with this title already exists"),
  // Not found.
  routeNotFound: legacyError(404, 404, "not found"),
  methodNotAllowed: legacyError(405, 405, "method not allowed"),
  requestNotFound: legacyError(404, 404, "Request not found"),
  outcomeNotFound: legacyError(404, 3001, "outcome is not exist"),
  optionNotFound: legacyError(404, 404, "option is not exist"),
  ordersNotFound: legacyError(404, 3004, "orders is not exist"),
  userNotFound: legacyError(404, 3005, "user is not exist / email not registered"),
  marketNotFound: legacyError(404, 3009, "market does not exist"),
  categoryNotFound: legacyError(404, 3020, "category is not exist"),
  positionNotFound: legacyError(404, 404, "position is not exist"),
  nothingToClaim: legacyError(404, 404, "No claimable rewards"),
  // Bill detail: spec 001 names this operation's message "User not found"; the code is the table's 3005.
  billUserNotFound: legacyError(404, 3005, "User not found"),
  /** Monthly bill: a merchantId that is not the token's (spec 001 has no code for it). */
  merchantNotFound: legacyError(404, 404, "Merchant not found"),
  // Balance and trading.
  shareNotEnough: legacyError(422, 2001, "share is not enough"),
  balanceInsufficient: legacyError(422, 2002, "Available balance is insufficient"),
  shareLockedInSellOrders: legacyError(422, 2004, "Available share not enough (ongoing sell orders)"),
  marketStatusConflict: legacyError(422, 4017, "The current market status does not allow this operation"),
  alreadyClaimed: legacyError(422, 4025, "market is claimed or in claiming"),
  statusForbidsModification: legacyError(
    422,
    4027,
    "The current status does not allow modification operations",
  ),
  marketClosed: legacyError(422, 90003, "market is closed"),
  challengeNotAllowed: legacyError(422, 4014, "market status does not allow launching a challenge"),
  priceTooFar: legacyError(422, 422, "Price is too far from the best price"),
  noLiquidity: legacyError(422, 422, "No liquidity at an acceptable price"),
  openOrdersLimit: legacyError(422, 422, "Too many open orders"),
  depositDuplicate: legacyError(422, 422, "Deposit already credited"),
  // System restrictions.
  amountNotInRange: legacyError(422, 5003, "amount not in range"),
  creatorMayNotTrade: legacyError(403, 5002, "Market creator is not allowed to place orders"),
  amountPrecision: legacyError(400, 5005, "amount precision error"),
  sharePrecision: legacyError(400, 5006, "share precision error"),
  shareTooSmall: legacyError(422, 5007, "share is too small"),
  shareTooLarge: legacyError(422, 5008, "share is too large"),
  internal: legacyError(500, 500, "Internal server error"),
  unavailable: legacyError(503, 503, "service temporarily unavailable"),
  requestTimeout: legacyError(503, 503, "request timed out"),
  /** The request itself did not arrive within the listener's bound (src/api/shared/listener-limits.ts). */
  receiveTimeout: legacyError(408, 408, "request timeout"),
} as const;

/** A connection's problem with HTTP itself, answered in the legacy envelope on the raw socket. */
export function legacyClientError(kind: ClientErrorKind, limits: ListenerLimits): ClientErrorAnswer {
  const error =
    kind === "timeout"
      ? withDetails(legacyErrors.receiveTimeout, { timeoutMs: limits.requestReceiveMsMax })
      : kind === "headers_too_large"
        ? parameterError("headers", "are too large")
        : parameterError("request", "is not valid HTTP/1.1");
  return {
    status: error.status,
    contentType: "application/json; charset=utf-8",
    body: JSON.stringify(legacyErrorBody(error)),
  };
}

/** A copy of an error with extra details beside `errorCode` (the field at fault, amounts). */
export function withDetails(error: LegacyError, details: Readonly<Record<string, unknown>>): LegacyError {
  return { ...error, data: { ...error.data, ...details } };
}

/** 400 `parameter error` naming the field (DESIGN §6: a wrong input is named). */
export function parameterError(field: string, reason?: string): LegacyError {
  return withDetails(legacyErrors.parameterError, reason === undefined ? { field } : { field, reason });
}

export function rateLimited(retryAfterSeconds: number, limit: number, window: string): LegacyError {
  return { status: 429, msg: "Too many requests", data: { retryAfter: retryAfterSeconds, limit, window } };
}

/**
 * Core rejections in legacy terms. Codes added to the core later fall back to their kind until
 * they get a line here (test/legacy/errors.test.ts lists the ones without one).
 */
export const legacyErrorByRejection: Partial<Record<RejectionCode, LegacyError>> = {
  INVALID_INPUT: legacyErrors.parameterError,
  PRECISION_EXCEEDED: legacyErrors.parameterError,
  USER_NOT_FOUND: legacyErrors.userNotFound,
  PARTNER_NOT_FOUND: legacyErrors.invalidApiKey,
  MARKET_NOT_FOUND: legacyErrors.marketNotFound,
  OUTCOME_NOT_FOUND: legacyErrors.outcomeNotFound,
  OPTION_NOT_FOUND: legacyErrors.optionNotFound,
  CATEGORY_NOT_FOUND: legacyErrors.categoryNotFound,
  MARKET_NOT_OPEN: legacyErrors.marketClosed,
  // A draft market has no book yet: to a trader it is simply not open.
  BOOK_NOT_INITIALIZED: legacyErrors.marketClosed,
  MARKET_STATUS_CONFLICT: legacyErrors.marketStatusConflict,
  INSUFFICIENT_BALANCE: legacyErrors.balanceInsufficient,
  INSUFFICIENT_SHARES: legacyErrors.shareNotEnough,
  AMOUNT_OUT_OF_RANGE: legacyErrors.amountNotInRange,
  ORDER_NOT_FOUND: legacyErrors.ordersNotFound,
  ORDER_NOT_CANCELLABLE: legacyErrors.statusForbidsModification,
  PRICE_OUT_OF_RANGE: legacyErrors.invalidPrice,
  PRICE_NOT_ON_TICK: legacyErrors.invalidPrice,
  SIZE_TOO_SMALL: legacyErrors.shareTooSmall,
  SIZE_TOO_LARGE: legacyErrors.shareTooLarge,
  SHARES_NOT_ON_STEP: legacyErrors.sharePrecision,
  PRICE_PROTECTION: legacyErrors.priceTooFar,
  FOK_NOT_FILLED: legacyErrors.noLiquidity,
  ORDER_EXPIRED: legacyErrors.parameterError,
  OPEN_ORDERS_LIMIT: legacyErrors.openOrdersLimit,
  NO_LIQUIDITY: legacyErrors.noLiquidity,
  BOOK_ORDERS_LIMIT: legacyErrors.openOrdersLimit,
  MODEL_NOT_SUPPORTED: legacyErrors.marketStatusConflict,
  POSITION_NOT_FOUND: legacyErrors.positionNotFound,
  MARKET_NOT_SETTLED: withDetails(legacyErrors.marketStatusConflict, { reason: "Market not settled" }),
  NOTHING_TO_CLAIM: legacyErrors.nothingToClaim,
  ALREADY_CLAIMED: legacyErrors.alreadyClaimed,
  DEPOSIT_DUPLICATE: legacyErrors.depositDuplicate,
  WITHDRAWAL_NOT_FOUND: legacyErrors.ordersNotFound,
  WITHDRAWAL_NOT_PENDING: legacyErrors.statusForbidsModification,
  WITHDRAWAL_NOT_APPROVED: legacyErrors.statusForbidsModification,
  NOT_MARKET_CREATOR: legacyErrors.permissionDenied,
  // Conversion is served on the signed gateway only; should a legacy route ever meet it, it is the
  // market's kind, not the request, that forbids it.
  MARKET_NOT_EXCLUSIVE: withDetails(legacyErrors.marketStatusConflict, { reason: "Market is not exclusive" }),
  // The market makers' kit (amend, post-only, the dead-man's switch) is served on the signed
  // gateway only; should a legacy route meet these, they say what the core says in legacy terms.
  ORDER_NOT_AMENDABLE: legacyErrors.statusForbidsModification,
  POST_ONLY_WOULD_TRADE: legacyError(422, 422, "Post-only order would trade at once"),
  // Refused to the scheduler only (a trip before its deadline), never to a request.
  DEAD_MANS_SWITCH_NOT_DUE: legacyError(422, 422, "The dead-man's switch is not due"),
};

export function fromRejection(rejection: Rejection): LegacyError {
  const mapped = legacyErrorByRejection[rejection.code];
  if (mapped !== undefined) return mapped;
  const kind = rejectionKind(rejection);
  const message = rejectionMessage(rejection);
  switch (kind) {
    case "invalid":
      return legacyError(400, 400, message);
    case "refused":
    case "not_ready":
      return legacyError(422, 422, message);
    case "not_found":
      return legacyError(404, 404, message);
    case "forbidden":
      return legacyError(403, 403, message);
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

/** The order submit's refusals (src/legacy/order-request.ts) in spec 001's terms. */
export function fromOrderProblem(problem: OrderProblem): LegacyError {
  switch (problem.kind) {
    case "parameter":
      return parameterError(problem.field, problem.reason);
    case "outcomeIdMissing":
      return legacyErrors.outcomeIdMissing;
    case "amountPrecision":
      return legacyErrors.amountPrecision;
    case "amountNotInRange":
      return legacyErrors.amountNotInRange;
    case "sharePrecision":
      return legacyErrors.sharePrecision;
    case "shareTooSmall":
      return legacyErrors.shareTooSmall;
    case "shareTooLarge":
      return legacyErrors.shareTooLarge;
    case "invalidPrice":
      return legacyErrors.invalidPrice;
    case "marketNotFound":
      return legacyErrors.marketNotFound;
    case "outcomeNotFound":
      return legacyErrors.outcomeNotFound;
    case "optionNotFound":
      return legacyErrors.optionNotFound;
    case "marketClosed":
      return legacyErrors.marketClosed;
    case "creatorMayNotTrade":
      return legacyErrors.creatorMayNotTrade;
    case "balanceInsufficient":
    case "shareNotEnough":
    case "shareLockedInSellOrders":
      // Spec 001's example of a 422 body: `data` holds the `required` and `available` numbers.
      return withDetails(legacyErrors[problem.kind], {
        required: atomsToNumber(problem.required),
        available: atomsToNumber(problem.available),
      });
    default: {
      const unreachable: never = problem;
      return unreachable;
    }
  }
}

/** The market application's refusals (src/legacy/market-applications.ts) in spec 001's terms. */
export function fromApplicationProblem(problem: ApplicationProblem): LegacyError {
  switch (problem.kind) {
    case "parameter":
      return parameterError(problem.field, problem.reason);
    case "liquidityTooLow":
      return legacyErrors.liquidityTooLow;
    case "weightsDoNotAddUp":
      return legacyErrors.weightsDoNotAddUp;
    case "categoryNotFound":
      return legacyErrors.categoryNotFound;
    case "titleExists":
      return legacyErrors.titleExists;
    case "duplicate":
      return legacyErrors.duplicateApplication;
    case "similar":
      return legacyErrors.similarMarket;
    default: {
      const unreachable: never = problem;
      return unreachable;
    }
  }
}

/**
 * A challenge's refusals: a market that is not resolving, whose window has ended or that was
 * already challenged is 4014 (the core says MARKET_STATUS_CONFLICT for all three); the rest as usual.
 */
export function fromChallengeRejection(rejection: Rejection): LegacyError {
  if (rejection.code === "MARKET_STATUS_CONFLICT") return legacyErrors.challengeNotAllowed;
  return fromRejection(rejection);
}

export function sendLegacyError(reply: FastifyReply, error: LegacyError): FastifyReply {
  return reply.code(error.status).type("application/json; charset=utf-8").send(legacyErrorBody(error));
}

export function legacyErrorBody(error: LegacyError) {
  return { code: error.status, msg: error.msg, data: error.data };
}

/** Fastify's error handler for the legacy surface: bad input is a 400, never a 500. */
export function handleLegacyError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error.validation !== undefined) {
    const { field, problem } = describeValidationError(error.validation);
    return sendLegacyError(reply, parameterError(field === "" ? "body" : field, problem));
  }
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return sendLegacyError(reply, parameterError("body", `exceeds ${bodyBytesMax} bytes`));
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return sendLegacyError(reply, legacyErrors.parameterError);
  }
  const tryAgainLater = tryAgainLaterOf(error);
  if (tryAgainLater !== undefined) {
    noteTryAgainLater(request.server, tryAgainLater);
    reply.header("retry-after", String(tryAgainLater.retryAfterSeconds));
    // Spec 001 has one status for both, 503; the message tells them apart: nothing was done, or
    // (as when the 30 s request timeout ends a request) the outcome is unknown.
    return sendLegacyError(
      reply,
      answeredOutcome(tryAgainLater, { read: isReadMethod(request.method) }) === "unknown"
        ? legacyErrors.requestTimeout
        : legacyErrors.unavailable,
    );
  }
  request.log.error({ err: error }, "unhandled error on the legacy surface");
  return sendLegacyError(reply, legacyErrors.internal);
}

export function handleLegacyNotFound(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendLegacyError(reply, legacyErrors.routeNotFound);
}

/** The legacy not-found handler: 405 with `Allow` where the path has routes under other methods. */
export function legacyNotFoundHandler(routes: RouteMethods) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const allowed = routes.allowedAt(request.url);
    if (allowed.length === 0) return handleLegacyNotFound(request, reply);
    reply.header("allow", allowed.join(", "));
    return sendLegacyError(reply, withDetails(legacyErrors.methodNotAllowed, { allowed }));
  };
}
