// POST /api/order/openapi/order/submit and GET /api/user/openapi/request/result/{fgRequestId}
// (spec 001): a submission is checked, queued durably and answered with its fgRequestId at once;
// the executor (src/legacy/request-executor.ts) runs it, and the result is read here.

import { randomUUID } from "node:crypto";
import { legacyResponses, success } from "../../../contract/legacy/envelope.js";
import {
  OrderSubmitRequest,
  OrderSubmitted,
  RequestResultParams,
  TransactionResult,
} from "../../../contract/legacy/orders.js";
import { checkOrderAgainstState, parseOrderSubmit } from "../../../legacy/order-request.js";
import { pendingContent, transactionResult } from "../../../legacy/request-results.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { requireLegacyToken } from "../authentication.js";
import { fromOrderProblem, legacyErrors, sendLegacyError } from "../errors.js";

export const orderSubmitPath = "/api/order/openapi/order/submit";
export const requestResultPath = "/api/user/openapi/request/result/:fgRequestId";

export default defineRoutes((app, deps) => {
  const services = app.legacyServices;

  app.post(
    orderSubmitPath,
    {
      schema: {
        summary: "Submit an order; it executes asynchronously",
        description:
          "Checked at once (shape, bounds, market, balance); the result is read with the returned `fgRequestId`. Do not resubmit before reading the result.",
        tags: ["Order"],
        body: OrderSubmitRequest,
        response: legacyResponses(OrderSubmitted),
      },
      preValidation: requireLegacyToken,
    },
    async (request, reply) => {
      const { userId, merchantId } = request.legacyToken!;
      const parsed = parseOrderSubmit(request.body);
      if (!parsed.ok) return sendLegacyError(reply, fromOrderProblem(parsed.problem));
      const checked = await deps.engine.read((state) =>
        checkOrderAgainstState(state, userId, parsed.value, deps.nowMs()),
      );
      if (!checked.ok) return sendLegacyError(reply, fromOrderProblem(checked.problem));
      const requestId = randomUUID();
      await services.requests.enqueue({
        requestId,
        merchantId,
        userId,
        instruction: checked.value,
        notifyContent: pendingContent(requestId, checked.value),
        nowMs: deps.nowMs(),
      });
      services.executor.wake();
      return success({ fgRequestId: requestId });
    },
  );

  app.get(
    requestResultPath,
    {
      schema: {
        summary: "The result of a submitted order: PENDING, SUCCESS or FAILED",
        tags: ["Order"],
        params: RequestResultParams,
        response: legacyResponses(TransactionResult),
      },
      preValidation: requireLegacyToken,
    },
    async (request, reply) => {
      const record = await services.requests.find(request.params.fgRequestId);
      // Another user's request is as unknown as a request that never existed.
      if (record === undefined || record.userId !== request.legacyToken!.userId) {
        return sendLegacyError(reply, legacyErrors.requestNotFound);
      }
      return success(transactionResult(record));
    },
  );
});
