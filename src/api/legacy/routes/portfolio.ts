// POST /api/order/openapi/positions and GET /api/order/openapi/query-user-activity (spec 001 steps
// 7 and 8): the token user's positions and trades, from the read models, paginated beside `data`.

import { legacyResponses } from "../../../contract/legacy/envelope.js";
import {
  ActivityQuery,
  ActivityRecord,
  PagedEnvelope,
  PositionRecord as PositionSchema,
  PositionsRequest,
} from "../../../contract/legacy/portfolio.js";
import { atomsToNumber, formatAtoms } from "../../../core/money.js";
import type { PositionRecord, TradeRecord } from "../../../store/exchange-read-models.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { requireLegacyToken } from "../authentication.js";
import { sendLegacyError } from "../errors.js";
import { pagedSuccess, resolveLegacyPage } from "../pagination.js";

export const positionsPath = "/api/order/openapi/positions";
export const userActivityPath = "/api/order/openapi/query-user-activity";

export default defineRoutes((app, deps) => {
  app.post(
    positionsPath,
    {
      schema: {
        summary: "The user's positions",
        tags: ["Order"],
        body: PositionsRequest,
        response: { ...legacyResponses(PositionSchema), 200: PagedEnvelope(PositionSchema) },
      },
      preValidation: requireLegacyToken,
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const page = resolveLegacyPage(body.page, body.pageSize);
      if (!page.ok) return sendLegacyError(reply, page.error);
      const { userId } = request.legacyToken!;
      const found = await deps.exchangeReadModels.positions({ userId, marketId: body.marketId }, page.value);
      return pagedSuccess(page.value, found, positionView);
    },
  );

  app.get(
    userActivityPath,
    {
      schema: {
        summary: "The user's trading history, newest first",
        tags: ["Order"],
        querystring: ActivityQuery,
        response: { ...legacyResponses(ActivityRecord), 200: PagedEnvelope(ActivityRecord) },
      },
      preValidation: requireLegacyToken,
    },
    async (request, reply) => {
      const page = resolveLegacyPage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendLegacyError(reply, page.error);
      const { userId } = request.legacyToken!;
      const found = await deps.exchangeReadModels.trades(
        { userId, marketId: request.query.marketId },
        page.value,
      );
      return pagedSuccess(page.value, found, activityView);
    },
  );
});

function positionView(position: PositionRecord) {
  const held = position.shares + position.frozenShares;
  return {
    positionId: position.positionId,
    marketId: position.marketId,
    outcomeId: position.outcomeId,
    optionId: position.optionId,
    shares: atomsToNumber(position.shares),
    frozenShares: atomsToNumber(position.frozenShares),
    // cost / shares held, rounded down to 8 decimals.
    avgPrice: held === 0n ? null : Number(formatAtoms((position.cost * 100_000_000n) / held)),
    cost: atomsToNumber(position.cost),
    realizedPnl: atomsToNumber(position.realizedPnl),
  };
}

function activityView(trade: TradeRecord) {
  return {
    tradeId: trade.tradeId,
    orderId: trade.orderId,
    marketId: trade.marketId,
    outcomeId: trade.outcomeId,
    optionId: trade.optionId,
    direction: trade.side,
    role: trade.role,
    price: atomsToNumber(trade.price),
    shares: atomsToNumber(trade.shares),
    amount: atomsToNumber((trade.price * trade.shares) / 100_000_000n),
    fee: atomsToNumber(trade.fee),
    tranDate: new Date(trade.timeMs).toISOString(),
  };
}
