// POST /ordering/create-orders (DESIGN §9): 1 to 20 create-order bodies placed in order as one
// engine batch (Engine.submitMany: queued all or none, decided back to back, one commit). Each item
// is an ordinary PlaceOrder command with its own journal entry and events, and stands alone: a
// refused item changes nothing and stops nothing. A malformed body places nothing (400/1001), and
// overload refuses the whole call before anything is queued (502/2002).

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import {
  type CreateOrdersItemResult,
  CreateOrdersRequest,
  CreateOrdersResult,
} from "../../../contract/partner/market-making.js";
import type { PlaceOrderCommand } from "../../../core/commands.js";
import type { Rejection } from "../../../core/errors.js";
import type { ExchangeEvent } from "../../../core/events.js";
import type { SubmitResult } from "../../../engine/engine.js";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { fromRejection } from "../errors.js";
import { placeOrderCommand } from "../order-command.js";
import { requireSession } from "../session.js";
import { orderView, placedOrder } from "../views/order-view.js";

function refusedItem(rejection: Rejection): CreateOrdersItemResult {
  const { code, message } = fromRejection(rejection);
  return { ok: false, code, message };
}

/** One item's answer, as create-order would give it. */
async function itemResult(
  deps: PlatformDeps,
  result: SubmitResult<ExchangeEvent>,
): Promise<CreateOrdersItemResult> {
  if (!result.ok) return refusedItem(result.rejection);
  const first = result.events[0];
  if (first?.type === "OrderRepeated") {
    // The clientOrderId named an earlier order: committed with its own batch, so the read model has it.
    const order = await deps.exchangeReadModels.orderById(first.orderId);
    if (order === undefined) throw new Error(`order ${first.orderId} is missing from the read model`);
    return { ok: true, order: orderView(order, await deps.exchangeReadModels.tradesOfOrder(order.orderId)) };
  }
  const placed = placedOrder(result.events);
  return { ok: true, order: orderView(placed.order, placed.trades) };
}

export default defineRoutes((app, deps) => {
  app.post(
    "/ordering/create-orders",
    {
      schema: {
        summary: "Place 1 to 20 orders at once (one engine batch)",
        description:
          "Each item is a create-order body and is answered as create-order would answer it, in the same order: `{ok: true, order}` or `{ok: false, code, message}`. Items are placed in order in one engine batch; each stands alone (a refused item changes nothing and does not stop the others). A malformed body, an empty list or more than 20 items is 400/1001 and places nothing; overload is 502/2002 and places nothing. The call counts as one request for the partner's rate limit; every order counts toward the 1,000 open orders per user.",
        tags: ["Ordering", "Market makers"],
        body: CreateOrdersRequest,
        response: partnerResponses(CreateOrdersResult),
      },
      preHandler: requireSession,
    },
    async (request) => {
      const userId = request.user.userId;
      // Items the edge already refuses (bad ids, too many decimals) never reach the engine.
      const parsed = request.body.orders.map((body) => placeOrderCommand(body, userId));
      const commands: PlaceOrderCommand[] = [];
      for (const item of parsed) if (item.ok) commands.push(item.value);
      const submitted = await deps.engine.submitMany(commands);
      let next = 0;
      const results = await Promise.all(
        parsed.map((item) => (item.ok ? itemResult(deps, submitted[next++]!) : refusedItem(item.rejection))),
      );
      return ok({ results });
    },
  );
});
