// POST /ordering/create-order, /ordering/open-orders, /ordering/cancel-order (DESIGN §8). Orders go
// to the engine and are answered after their commit; history comes from the read models.

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import {
  CancelOrderRequest,
  CreateOrderRequest,
  OpenOrdersRequest,
  Order,
  pagedResponses,
} from "../../../contract/partner/trading.js";
import { reject } from "../../../core/errors.js";
import type { OrderRecord } from "../../../store/exchange-read-models.js";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection, sendServiceError } from "../errors.js";
import { placeOrderCommand, requestId } from "../order-command.js";
import { pageFields, resolvePage } from "../pagination.js";
import { requireSession } from "../session.js";
import { orderView, placedOrder } from "../views/order-view.js";

async function storedOrderView(deps: PlatformDeps, order: OrderRecord) {
  return orderView(order, await deps.exchangeReadModels.tradesOfOrder(order.orderId));
}

export default defineRoutes((app, deps) => {
  app.post(
    "/ordering/create-order",
    {
      schema: {
        summary: "Place a LIMIT or MARKET order",
        description:
          "LIMIT needs `limitPrice` and `shares`; a MARKET BUY spends `amount`, a MARKET SELL sells `shares`. Numbers are JSON numbers. The same `clientOrderId` again within 24 hours returns the first order; after that it places a new one.",
        tags: ["Ordering"],
        body: CreateOrderRequest,
        response: partnerResponses(Order),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const command = placeOrderCommand(request.body, request.user.userId);
      if (!command.ok) return sendRejection(reply, command.rejection);
      const result = await deps.engine.submit(command.value);
      if (!result.ok) return sendRejection(reply, result.rejection);
      const first = result.events[0];
      if (first?.type === "OrderRepeated") {
        // Committed with the first order's batch, so the read model has it.
        const order = await deps.exchangeReadModels.orderById(first.orderId);
        if (order === undefined) throw new Error(`order ${first.orderId} is missing from the read model`);
        return ok(await storedOrderView(deps, order));
      }
      const placed = placedOrder(result.events);
      return ok(orderView(placed.order, placed.trades));
    },
  );

  app.post(
    "/ordering/open-orders",
    {
      schema: {
        summary: "The session user's unfilled orders (OPEN and PARTIALLY_FILLED), newest first",
        description: "Pagination fields `current`, `size`, `total`, `pages` are beside `data`.",
        tags: ["Ordering"],
        body: OpenOrdersRequest,
        response: pagedResponses(Order),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const page = resolvePage(body.page, body.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      let marketId: number | undefined;
      if (body.marketId !== undefined) {
        marketId = requestId(body.marketId);
        if (marketId === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      }
      const found = await deps.exchangeReadModels.orders(
        { userId: request.user.userId, marketId, openOnly: true },
        page.value,
      );
      const data = await Promise.all(found.records.map((order) => storedOrderView(deps, order)));
      return { code: 0, message: "ok", data, ...pageFields(page.value, found.total) };
    },
  );

  app.post(
    "/ordering/cancel-order",
    {
      schema: {
        summary: "Cancel one of the session user's resting orders",
        tags: ["Ordering"],
        body: CancelOrderRequest,
        response: partnerResponses(Order),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const orderId = requestId(request.body.orderId);
      const existing = orderId === undefined ? undefined : await deps.exchangeReadModels.orderById(orderId);
      // Another user's order is "not found": its existence is none of the caller's business.
      if (existing === undefined || existing.userId !== request.user.userId) {
        return sendRejection(reply, reject("ORDER_NOT_FOUND"));
      }
      const result = await deps.engine.submit({
        type: "CancelOrder",
        userId: request.user.userId,
        orderId: existing.orderId,
      });
      if (!result.ok) return sendRejection(reply, result.rejection);
      const cancelled = await deps.exchangeReadModels.orderById(existing.orderId);
      return ok(await storedOrderView(deps, cancelled ?? existing));
    },
  );
});
