// POST /ordering/amend-order (DESIGN §9): one AmendOrder command (core/book/amend-order.ts). Fewer
// shares at the same price keep the order's place in its queue; any other change sends it to the
// back of its (new) level, where it may trade at once unless it is post-only. The answer is the
// order after the change, as create-order shows an order, read after the commit.

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { AmendedOrder, AmendOrderRequest } from "../../../contract/partner/market-making.js";
import type { AmendOrderCommand } from "../../../core/commands.js";
import { reject } from "../../../core/errors.js";
import { parseAtoms } from "../../../core/money.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { badRequest, sendRejection, sendServiceError } from "../errors.js";
import { requestId } from "../order-command.js";
import { requireSession } from "../session.js";
import { orderView } from "../views/order-view.js";

/** A JSON number as atoms; more than 8 decimals is refused, never rounded (DESIGN §6). */
function atomsOf(field: string, value: number | undefined) {
  if (value === undefined) return { ok: true as const, atoms: null };
  const parsed = parseAtoms(value);
  if (parsed.ok) return { ok: true as const, atoms: parsed.atoms };
  return {
    ok: false as const,
    rejection:
      parsed.reason === "precision"
        ? reject("PRECISION_EXCEEDED", `${field} has more than 8 decimal places`)
        : reject("INVALID_INPUT", `${field} must be a finite number`),
  };
}

export default defineRoutes((app, deps) => {
  app.post(
    "/ordering/amend-order",
    {
      schema: {
        summary: "Change the size or price of one of the session user's open orders",
        description:
          "`shares` is the new total size (more than what has filled), `limitPrice` the new price; give either or both. Fewer shares at the same price keep the order's place in the queue; any other change moves it to the back of its (new) level, and it may then trade at once unless it is post-only (then it is refused, 400/1001 `bad request: Post-only order would trade at once`). Frozen funds follow exactly. Answers the order after the change, same `orderId`; an order that has ended is 400/1001 `bad request: Order is no longer open`.",
        tags: ["Ordering", "Market makers"],
        body: AmendOrderRequest,
        response: partnerResponses(AmendedOrder),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const { body } = request;
      const userId = request.user.userId;
      if (body.shares === undefined && body.limitPrice === undefined)
        return sendServiceError(reply, badRequest("amend-order needs shares or limitPrice"));
      const orderId = requestId(body.orderId);
      if (orderId === undefined) return sendRejection(reply, reject("ORDER_NOT_FOUND"));
      const shares = atomsOf("shares", body.shares);
      if (!shares.ok) return sendRejection(reply, shares.rejection);
      const limitPrice = atomsOf("limitPrice", body.limitPrice);
      if (!limitPrice.ok) return sendRejection(reply, limitPrice.rejection);
      const command: AmendOrderCommand = {
        type: "AmendOrder",
        userId,
        orderId,
        shares: shares.atoms,
        limitPrice: limitPrice.atoms,
      };
      const result = await deps.engine.submit(command);
      if (!result.ok) {
        // As on cancel-order: an order that has ended is "no longer open" only to its owner.
        if (result.rejection.code === "ORDER_NOT_AMENDABLE") {
          const stored = await deps.exchangeReadModels.orderById(orderId);
          if (stored?.userId !== userId) return sendRejection(reply, reject("ORDER_NOT_FOUND"));
        }
        return sendRejection(reply, result.rejection);
      }
      // Committed, so the read model holds the amend and any fills it made.
      const order = await deps.exchangeReadModels.orderById(orderId);
      if (order === undefined) throw new Error(`order ${orderId} is missing from the read model`);
      return ok(orderView(order, await deps.exchangeReadModels.tradesOfOrder(orderId)));
    },
  );
});
