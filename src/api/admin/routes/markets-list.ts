// GET /admin/markets (every market, drafts too, newest first), GET /admin/markets/{id} (the market
// detail of spec 000, drafts included) and GET /admin/markets/{id}/orders (the orders resting in its
// books, newest first, with their owners): what the operator's desk shows beside the lifecycle
// actions of markets.ts and market-lifecycle.ts.

import { Type } from "typebox";
import { AdminMarketDetail } from "../../../contract/admin.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { isoSeconds, parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { openOrderById } from "../../../core/exchange.js";
import type { MarketStatus } from "../../../core/market.js";
import { formatAtoms } from "../../../core/money.js";
import { badRequest, sendRejection, sendServiceError } from "../../partner/errors.js";
import { PageFields, PageFieldsSchema, pageFields, resolvePage } from "../../partner/pagination.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { loadAdminMarketDetail } from "../market-detail.js";

/** Resting orders one answer lists at most (the newest). */
export const marketOrdersMax = 200;
const marketStatuses: readonly MarketStatus[] = ["draft", "open", "closed", "resolving", "settled", "void"];

const MarketIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
const ListQuery = Type.Object({
  ...PageFields,
  status: Type.Optional(Type.String({ maxLength: 16, description: marketStatuses.join(", ") })),
  keyword: Type.Optional(Type.String({ maxLength: 200, description: "Part of the title, or the market id" })),
});
const NullableTime = Type.Union([Type.String(), Type.Null()]);
const MarketRow = Type.Object({
  marketId: Type.String(),
  title: Type.String(),
  status: Type.String(),
  modelType: Type.String(),
  categoryId: Type.Union([Type.String(), Type.Null()]),
  category: Type.String({ description: "The category's en-US name, empty when it has none" }),
  volume: Type.String({ description: "USDT traded" }),
  startTime: NullableTime,
  endTime: NullableTime,
  createdAt: Type.String(),
  exclusive: Type.Boolean({ description: "An exclusive event: exactly one outcome wins (DESIGN §10)" }),
});
const RestingOrder = Type.Object({
  orderId: Type.String(),
  userId: Type.String(),
  outcomeId: Type.String(),
  optionId: Type.String(),
  side: Type.String(),
  timeInForce: Type.String(),
  status: Type.String(),
  limitPrice: Type.String({ description: "In the order's option terms" }),
  shares: Type.String(),
  filledShares: Type.String(),
  remainingShares: Type.String(),
  clientOrderId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});
const knownStatuses: ReadonlySet<string> = new Set(marketStatuses);

export default defineRoutes((app, deps) => {
  const queries = deps.consoleQueries;
  const time = (ms: number | null) => (ms === null ? null : isoSeconds(ms));

  app.get(
    "/admin/markets",
    {
      schema: {
        summary: "Every market, drafts too, newest first; filter by status or title",
        tags: ["Markets"],
        querystring: ListQuery,
        response: partnerResponses(Type.Object({ ...PageFieldsSchema, records: Type.Array(MarketRow) })),
      },
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const status = request.query.status === "" ? undefined : request.query.status;
      if (status !== undefined && !knownStatuses.has(status))
        return sendServiceError(reply, badRequest(`status must be one of ${marketStatuses.join(", ")}`));
      const found = await queries.markets({ status, keyword: request.query.keyword }, page.value);
      const records = [];
      for (const market of found.records) {
        records.push({
          marketId: String(market.marketId),
          title: market.title,
          status: market.status,
          modelType: market.modelType,
          categoryId: market.categoryId,
          category: await deps.categories.marketCategoryName(market.categoryId),
          volume: formatAtoms(market.volume),
          startTime: time(market.startTimeMs),
          endTime: time(market.endTimeMs),
          createdAt: isoSeconds(market.createdAtMs),
          exclusive: market.exclusive,
        });
      }
      return ok({ ...pageFields(page.value, found.total), records });
    },
  );

  app.get(
    "/admin/markets/:id",
    {
      schema: {
        summary: "One market in any status (the market detail, with `exclusive`)",
        tags: ["Markets"],
        params: MarketIdParams,
        response: partnerResponses(AdminMarketDetail),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.id);
      const detail = marketId === undefined ? undefined : await loadAdminMarketDetail(deps, marketId);
      if (detail === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      return ok(detail);
    },
  );

  app.get(
    "/admin/markets/:id/orders",
    {
      schema: {
        summary: `The orders resting in a market's books, newest first (at most ${marketOrdersMax})`,
        tags: ["Markets"],
        params: MarketIdParams,
        response: partnerResponses(
          Type.Object({
            total: Type.Integer({ description: "Resting orders in the market" }),
            records: Type.Array(RestingOrder),
          }),
        ),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.id);
      const found =
        marketId === undefined
          ? undefined
          : await deps.engine.read((state) => {
              if (!state.markets.has(marketId)) return undefined;
              // Resting orders live in one index by id; an operator's read may walk it.
              const ids: number[] = [];
              for (const order of state.orders.values())
                if (order.marketId === marketId) ids.push(order.orderId);
              const newest = ids.slice(-marketOrdersMax).reverse();
              return { total: ids.length, views: newest.map((id) => openOrderById(state, id)!) };
            });
      if (found === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      return ok({
        total: found.total,
        records: found.views.map((order) => ({
          orderId: String(order.orderId),
          userId: String(order.userId),
          outcomeId: String(order.outcomeId),
          optionId: String(order.optionId),
          side: order.side,
          timeInForce: order.timeInForce,
          status: order.status,
          limitPrice: formatAtoms(order.limitPrice),
          shares: formatAtoms(order.shares),
          filledShares: formatAtoms(order.filledShares),
          remainingShares: formatAtoms(order.remainingShares),
          clientOrderId: order.clientOrderId,
          createdAt: isoSeconds(order.createdAtMs),
        })),
      });
    },
  );
});
