// POST /ordering/cancel-orders (DESIGN §9): 1 to 1,000 of the session user's orders cancelled in one
// call. Each is an ordinary CancelOrder command with its own journal entry and event, queued
// together (Engine.submitMany: all or none, decided back to back); each id gets what cancel-order
// would have answered. An id listed twice is cancelled once.

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { CancelOrdersRequest, CancelOrdersResult } from "../../../contract/partner/market-making.js";
import type { CancelOrderCommand } from "../../../core/commands.js";
import { type Rejection, reject } from "../../../core/errors.js";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { fromRejection } from "../errors.js";
import { requestId } from "../order-command.js";
import { requireSession } from "../session.js";

/**
 * The core keeps only resting orders, so it calls every issued id that is not resting "not
 * cancellable"; as cancel-order does, one that is not the caller's is "not found" instead.
 */
async function callersRejection(
  deps: PlatformDeps,
  userId: number,
  orderId: number,
  rejection: Rejection,
): Promise<Rejection> {
  if (rejection.code !== "ORDER_NOT_CANCELLABLE") return rejection;
  const stored = await deps.exchangeReadModels.orderById(orderId);
  return stored?.userId === userId ? rejection : reject("ORDER_NOT_FOUND");
}

export default defineRoutes((app, deps) => {
  app.post(
    "/ordering/cancel-orders",
    {
      schema: {
        summary: "Cancel 1 to 1,000 of the session user's orders at once",
        description:
          "Answers `{cancelled: [orderId, …], notCancelled: [{orderId, code, message}, …]}`, both in the order the ids were sent; each refusal is what cancel-order would have answered (1001 `bad request: Order is not cancellable` for an order that has ended, 1404 `resource not found: Order not found` for an id that is not yours). An id listed twice is cancelled once. Overload is 502/2002 and cancels nothing.",
        tags: ["Ordering", "Market makers"],
        body: CancelOrdersRequest,
        response: partnerResponses(CancelOrdersResult),
      },
      preHandler: requireSession,
    },
    async (request) => {
      const userId = request.user.userId;
      const answer: CancelOrdersResult = { cancelled: [], notCancelled: [] };
      const refuse = (orderId: string, rejection: Rejection) => {
        const { code, message } = fromRejection(rejection);
        answer.notCancelled.push({ orderId, code, message });
      };
      const seen = new Set<number>();
      const commands: CancelOrderCommand[] = [];
      for (const sent of request.body.orderIds) {
        const orderId = requestId(sent);
        if (orderId === undefined) refuse(String(sent), reject("ORDER_NOT_FOUND"));
        else if (!seen.has(orderId)) {
          seen.add(orderId);
          commands.push({ type: "CancelOrder", userId, orderId });
        }
      }
      const results = await deps.engine.submitMany(commands);
      for (const [index, result] of results.entries()) {
        const { orderId } = commands[index]!;
        if (result.ok) answer.cancelled.push(String(orderId));
        else refuse(String(orderId), await callersRejection(deps, userId, orderId, result.rejection));
      }
      return ok(answer);
    },
  );
});
