// POST /api/order/openapi/merchant-commission-bill/query/month and GET /api/order/openapi/bill/query-detail
// (spec 001 "Merchant monthly bill statement", "Merchant user bill detail").

import { Type } from "typebox";
import { PageParameters } from "./portfolio.js";

// Types are checked by the handler, so a malformed billPeriod gets the operation's own message
// (`Invalid request parameters`) rather than the schema's generic one.
export const MonthlyBillRequest = Type.Object({
  billPeriod: Type.Optional(Type.Unknown({ description: "Number YYYYMM, e.g. 202611" })),
  merchantId: Type.Optional(Type.Unknown({ description: "Number: the token's merchant" })),
  page: Type.Optional(Type.Unknown()),
  pageSize: Type.Optional(Type.Unknown()),
});

export const MonthlyStatement = Type.Object({
  statementId: Type.String(),
  merchantId: Type.String(),
  periodMonth: Type.String({ description: "YYYYMM" }),
  currency: Type.String(),
  selfCommissionFee: Type.Number(),
  tradeFeeTotal: Type.Number(),
  settlementFeeTotal: Type.Number(),
  unclaimedPoolTotal: Type.Number(),
  agentCommissionTotal: Type.Number(),
  commissionRate: Type.Number({ description: "Percent" }),
  merchantTotalIncome: Type.Number(),
  adjustmentAmount: Type.Number(),
  createTime: Type.String(),
  updateTime: Type.String(),
});

export const BillDetailQuery = Type.Object({
  merchantId: Type.Optional(Type.String({ maxLength: 32 })),
  merchantUserId: Type.Optional(Type.String({ maxLength: 128 })),
  ...PageParameters,
});

export const BillDetailLine = Type.Object({
  userId: Type.String(),
  merchantUserId: Type.String(),
  marketId: Type.String(),
  outcomeId: Type.String(),
  optionId: Type.String(),
  optionTitle: Type.String(),
  currency: Type.String(),
  merchantId: Type.Integer(),
  optionIndex: Type.Integer(),
  type: Type.Union([Type.Literal("BUY"), Type.Literal("SELL")]),
  shares: Type.Union([Type.Number(), Type.Null()]),
  tranDate: Type.Union([Type.String(), Type.Null()]),
  amount: Type.String({ description: "Decimal: price × shares, fees excluded" }),
});
