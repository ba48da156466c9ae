// Errors of the Polymarket-compatible reads, the way Polymarket's CLOB answers them: a status and a
// bare {"error": "<message>"} (docs.polymarket.com, "Error Codes"). The messages a Polymarket
// client may compare are Polymarket's own, word for word. Every route file of these reads installs
// handlePolymarketError on its own scope, so the rest of the public listener keeps its conventions.

import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { ModelType } from "../../../core/exchange.js";
import { noteTryAgainLater, tryAgainLaterOf } from "../../shared/try-again-later.js";

export const polymarketErrors = {
  invalidTokenId: "Invalid token id",
  invalidSide: "Invalid side",
  invalidPayload: "Invalid payload",
  payloadTooLarge: "Payload exceeds the limit",
  noOrderbook: "No orderbook exists for the requested token id",
  marketNotFound: "market not found",
  invalidCursor: "invalid next_cursor",
  invalidApiKey: "Unauthorized/Invalid api key",
  unavailable: "service unavailable, try again",
  internal: "internal error",
} as const;

/** Polymarket's limit on one batch read (its docs: "Maximum 500 token IDs … per call"). */
export const batchTokensMax = 500;

export const PolymarketError = Type.Object(
  { error: Type.String() },
  { description: "Polymarket's error body: one human-readable message" },
);

export class PolymarketFailure {
  constructor(
    readonly status: 400 | 401 | 404 | 503,
    readonly message: string,
  ) {}
}

export function sendPolymarketError(reply: FastifyReply, failure: PolymarketFailure): FastifyReply {
  return reply.code(failure.status).type("application/json; charset=utf-8").send({ error: failure.message });
}

export const noOrderbook = new PolymarketFailure(404, polymarketErrors.noOrderbook);
export const marketNotFound = new PolymarketFailure(404, polymarketErrors.marketNotFound);
export const invalidTokenId = new PolymarketFailure(400, polymarketErrors.invalidTokenId);
export const invalidSide = new PolymarketFailure(400, polymarketErrors.invalidSide);
export const invalidPayload = new PolymarketFailure(400, polymarketErrors.invalidPayload);
export const payloadTooLarge = new PolymarketFailure(400, polymarketErrors.payloadTooLarge);

/**
 * An AMM or parimutuel market has prices but no order book. Polymarket has no such markets, so its
 * message is kept as the prefix (clients that match it still see "no book") and the reason follows.
 */
export function poolHasNoBook(modelType: ModelType): PolymarketFailure {
  const pool = modelType === "AMM" ? "an AMM pool" : "a parimutuel pool";
  return new PolymarketFailure(404, `${polymarketErrors.noOrderbook}: the market trades against ${pool}`);
}

/** The error handler of every Polymarket-compatible route's scope: schema failures, body limits, engine. */
export function handlePolymarketError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error.validation !== undefined) {
    const first = error.validation[0];
    if (error.validationContext !== "querystring" && error.validationContext !== "params") {
      return sendPolymarketError(reply, first?.keyword === "maxItems" ? payloadTooLarge : invalidPayload);
    }
    const params = (first?.params ?? {}) as Record<string, unknown>;
    const field = [
      first?.instancePath ?? "",
      String(params.requiredProperties ?? params.missingProperty ?? ""),
    ]
      .join("/")
      .toLowerCase();
    if (field.includes("side")) return sendPolymarketError(reply, invalidSide);
    if (field.includes("cursor"))
      return sendPolymarketError(reply, new PolymarketFailure(400, polymarketErrors.invalidCursor));
    return sendPolymarketError(reply, invalidTokenId);
  }
  const tryAgainLater = tryAgainLaterOf(error);
  if (tryAgainLater !== undefined) {
    // Every one of these routes is a read: nothing was done, the caller may simply ask again.
    noteTryAgainLater(request.server, tryAgainLater);
    reply.header("retry-after", String(tryAgainLater.retryAfterSeconds));
    return sendPolymarketError(reply, new PolymarketFailure(503, polymarketErrors.unavailable));
  }
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") return sendPolymarketError(reply, payloadTooLarge);
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return sendPolymarketError(reply, invalidPayload);
  }
  request.log.error({ err: error }, "unhandled error on a Polymarket-compatible read");
  return reply.code(500).type("application/json; charset=utf-8").send({ error: polymarketErrors.internal });
}

/** A book that exists but has no bids or no asks has no midpoint or spread (the signed host says null). */
export function oneSidedBook(what: "midpoint" | "spread"): PolymarketFailure {
  return new PolymarketFailure(404, `No ${what} for the requested token id: the book has no bids or no asks`);
}

/** A side of the book with no orders has no best price. */
export function emptySide(side: "bids" | "asks"): PolymarketFailure {
  return new PolymarketFailure(404, `No price for the requested token id: the book has no ${side}`);
}
