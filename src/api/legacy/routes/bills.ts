// POST /api/order/openapi/merchant-commission-bill/query/month and GET /api/order/openapi/bill/query-detail
// (spec 001 point 6). The JWT authenticates the merchant (tokens come only from the merchant's
// signed authorize), so either bill is readable with any token of that merchant, and only for it:
// another merchantId is 403.

import {
  BillDetailLine,
  BillDetailQuery,
  MonthlyBillRequest,
  MonthlyStatement,
} from "../../../contract/legacy/bills.js";
import { legacyResponses } from "../../../contract/legacy/envelope.js";
import { PagedEnvelope } from "../../../contract/legacy/portfolio.js";
import { billDetailLine, monthlyStatement, parseBillPeriod } from "../../../legacy/merchant-bills.js";
import { periodOf } from "../../../store/merchant-commissions.js";
import { pageNumberMax } from "../../shared/pagination.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { requireLegacyToken } from "../authentication.js";
import { legacyErrors, parameterError, sendLegacyError, withDetails } from "../errors.js";
import { pagedSuccess, resolveLegacyPage } from "../pagination.js";

export const monthlyBillPath = "/api/order/openapi/merchant-commission-bill/query/month";
export const billDetailPath = "/api/order/openapi/bill/query-detail";

const invalid = (field: string, reason: string) =>
  withDetails(legacyErrors.invalidRequestParameters, { field, reason });
const optionalInteger = (value: unknown): value is number | undefined =>
  value === undefined || (typeof value === "number" && Number.isInteger(value));

export default defineRoutes((app, deps) => {
  const services = app.legacyServices;

  app.post(
    monthlyBillPath,
    {
      schema: {
        summary: "The merchant's commission statement of one month",
        description:
          "`billPeriod` number YYYYMM; malformed: 400 `Invalid request parameters`. A month after the current one has no statement.",
        tags: ["Bill"],
        body: MonthlyBillRequest,
        response: { ...legacyResponses(MonthlyStatement), 200: PagedEnvelope(MonthlyStatement) },
      },
      preValidation: requireLegacyToken,
      // A body that is not a JSON object gets the operation's message too, not `parameter error`.
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError !== undefined || request.body === null || typeof request.body !== "object")
        return sendLegacyError(reply, invalid("body", "must be a JSON object"));
      const body = request.body;
      const billPeriod = parseBillPeriod(body.billPeriod);
      if (billPeriod === undefined)
        return sendLegacyError(reply, invalid("billPeriod", "must be a number YYYYMM"));
      if (typeof body.merchantId !== "number" || !Number.isInteger(body.merchantId)) {
        return sendLegacyError(reply, invalid("merchantId", "must be a number"));
      }
      if (!optionalInteger(body.page) || !optionalInteger(body.pageSize)) {
        return sendLegacyError(reply, invalid("page", "page and pageSize must be integers"));
      }
      const page = resolveLegacyPage(body.page, body.pageSize);
      if (!page.ok) {
        return sendLegacyError(
          reply,
          invalid("page", `page must be 1 to ${pageNumberMax} and pageSize >= 1`),
        );
      }
      const { merchantId } = request.legacyToken!;
      // Another merchant is as missing as one that never existed: nothing about it is revealed.
      if (body.merchantId !== merchantId) return sendLegacyError(reply, legacyErrors.merchantNotFound);
      const partner = await deps.identity.findPartner(merchantId);
      if (partner === undefined) return sendLegacyError(reply, legacyErrors.invalidToken);
      const nowMs = deps.nowMs();
      // A month that has not begun has no statement yet.
      const statements =
        billPeriod.period > periodOf(nowMs)
          ? []
          : [
              monthlyStatement({
                merchantId,
                billPeriod,
                commission: await services.commissions.commission(merchantId, billPeriod.period),
                currentRateBps: partner.commissionRateBps,
                unclaimedPool: await services.bills.unclaimedPool(
                  merchantId,
                  billPeriod.startMs,
                  billPeriod.endMs,
                ),
                nowMs,
              }),
            ];
      const from = (page.value.page - 1) * page.value.pageSize;
      return pagedSuccess(
        page.value,
        { total: statements.length, records: statements.slice(from, from + page.value.pageSize) },
        (statement) => statement,
      );
    },
  );

  app.get(
    billDetailPath,
    {
      schema: {
        summary: "One user's bill: each trade, newest first",
        description:
          "`merchantId` and `merchantUserId` required (400); unknown user, or a merchant that is not the token's, 404 `User not found`.",
        tags: ["Bill"],
        querystring: BillDetailQuery,
        response: { ...legacyResponses(BillDetailLine), 200: PagedEnvelope(BillDetailLine) },
      },
      preValidation: requireLegacyToken,
    },
    async (request, reply) => {
      const { merchantId, merchantUserId, page, pageSize } = request.query;
      if (merchantId === undefined || !/^[0-9]{1,15}$/.test(merchantId)) {
        return sendLegacyError(reply, parameterError("merchantId", "is required and must be a number"));
      }
      if (merchantUserId === undefined || merchantUserId.trim() === "") {
        return sendLegacyError(reply, parameterError("merchantUserId", "is required"));
      }
      const resolved = resolveLegacyPage(page, pageSize);
      if (!resolved.ok) return sendLegacyError(reply, resolved.error);
      // Another merchant's users are none of this merchant's: answered as a user that is missing,
      // the same answer an id no merchant has gets (spec 001: 404 merchant or user missing).
      if (Number(merchantId) !== request.legacyToken!.merchantId) {
        return sendLegacyError(reply, legacyErrors.billUserNotFound);
      }
      const userId = await services.bills.userIdOf(Number(merchantId), merchantUserId);
      if (userId === undefined) return sendLegacyError(reply, legacyErrors.billUserNotFound);
      const trades = await deps.exchangeReadModels.trades({ userId }, resolved.value);
      const options = new Map<number, { title: string; optionIndex: number }>();
      for (const marketId of new Set(trades.records.map((trade) => trade.marketId))) {
        const market = await deps.exchangeReadModels.market(marketId);
        for (const outcome of market?.outcomes ?? [])
          for (const option of outcome.options) options.set(option.optionId, option);
      }
      const user = { merchantId: Number(merchantId), merchantUserId };
      return pagedSuccess(resolved.value, trades, (trade) =>
        billDetailLine(trade, user, options.get(trade.optionId)),
      );
    },
  );
});
