// POST /api/order/openapi/order/submit and GET /api/user/openapi/request/result/{fgRequestId}
// (spec 001 "Order submit request", "Transaction result record").

import { type Static, Type } from "typebox";

const Decimal = (description: string) =>
  Type.Union([Type.Number(), Type.String({ maxLength: 64 })], { description });

// Presence rules (BUY has amount, SELL has shares, outcomeId 4001, …) are checked in
// src/legacy/order-request.ts, so each gets the exact code of spec 001's table.
export const OrderSubmitRequest = Type.Object({
  marketId: Type.Optional(Type.Number({ description: "Market id (a number)" })),
  outcomeId: Type.Optional(Type.Number({ description: "Outcome id (a number); missing: 4001" })),
  optionId: Type.Optional(Type.Number({ description: "Option id (a number)" })),
  direction: Type.Optional(Type.String({ maxLength: 8, description: "BUY or SELL" })),
  orderType: Type.Optional(
    Type.String({
      maxLength: 16,
      description: "MARKET (orderbook, AMM), LIMIT with `price` (orderbook), PARIMUTUEL (parimutuel)",
    }),
  ),
  amount: Type.Optional(Decimal("BUY: USDT to spend, 0.01 to 1,000,000, 8 decimals at most")),
  shares: Type.Optional(Decimal("SELL: shares to sell, 8 decimals at most")),
  price: Type.Optional(Decimal("LIMIT: price between 0 and 1, rounded down to the market's tick")),
});
export type OrderSubmitRequest = Static<typeof OrderSubmitRequest>;

export const OrderSubmitted = Type.Object({ fgRequestId: Type.String() });

export const RequestResultParams = Type.Object({ fgRequestId: Type.String({ maxLength: 128 }) });

export const TransactionResult = Type.Object({
  id: Type.String({ description: "The fgRequestId" }),
  merchantId: Type.Integer(),
  userId: Type.Integer(),
  status: Type.Union([Type.Literal("SUCCESS"), Type.Literal("FAILED"), Type.Literal("PENDING")]),
  errorMsg: Type.Union([Type.String(), Type.Null()]),
  notifyContent: Type.String({ description: "JSON text with the transaction details" }),
  notifyStatus: Type.Integer({
    description: "0 pending, 1 delivered, 2 failed after every attempt, 3 no webhookUrl",
  }),
  notifyRetryTimes: Type.Integer({ description: "Failed delivery attempts so far" }),
  notifyUpdateTime: Type.Union([Type.String(), Type.Null()], { description: "Last delivery attempt" }),
  createTime: Type.String({ description: "ISO 8601" }),
  updateTime: Type.String({ description: "ISO 8601" }),
});
export type TransactionResult = Static<typeof TransactionResult>;
