// Schemas of the market makers' operations (DESIGN §9): batch create, batch and mass cancel, amend,
// and the dead-man's switch, all on the signed host and user-scoped like create-order. The bounds
// are named here because the SDK ships with the contract and without the core; those the core
// also enforces are checked equal by test/contract/limits.test.ts.

import { type Static, Type } from "typebox";
import { CreateOrderRequest, Order } from "./trading.js";

/** Orders in one create-orders call. */
export const createOrdersItemsMax = 20;
/** Order ids in one cancel-orders call. */
export const cancelOrdersIdsMax = 1_000;
/** The dead-man's switch's timeout: 0 disarms it, otherwise from 5 s to 5 min. */
export const heartbeatTimeoutSecondsMin = 5;
export const heartbeatTimeoutSecondsMax = 300;

const Id = Type.String({ description: "Numeric id as a string" });
/** Ids in requests: the strings the API hands out, or numbers. Anything not a positive integer is "not found". */
const RequestId = Type.Union([Type.String({ maxLength: 32 }), Type.Number()], {
  description: "Numeric id, as a string (as returned) or a number",
});

/** One item's refusal, as the single operation would answer it. */
const ItemError = {
  code: Type.Integer({ description: "1001 refused or malformed, 1404 not found, 4054 book not open yet" }),
  message: Type.String({
    description: "As the single operation would answer, e.g. `bad request: Insufficient balance`",
  }),
};

const exampleQuote = {
  marketId: "12",
  outcomeId: "31",
  optionId: "61",
  side: "BUY",
  orderType: "LIMIT",
  limitPrice: 0.48,
  shares: 100,
  postOnly: true,
  clientOrderId: "q-bid-1",
};

export const CreateOrdersRequest = Type.Object(
  {
    orders: Type.Array(CreateOrderRequest, {
      minItems: 1,
      maxItems: createOrdersItemsMax,
      description: `1 to ${createOrdersItemsMax} create-order bodies, placed in this order`,
    }),
  },
  {
    examples: [
      {
        orders: [exampleQuote, { ...exampleQuote, side: "SELL", limitPrice: 0.52, clientOrderId: "q-ask-1" }],
      },
    ],
  },
);
export type CreateOrdersRequest = Static<typeof CreateOrdersRequest>;

export const CreateOrdersItemResult = Type.Union([
  Type.Object({ ok: Type.Literal(true), order: Order }),
  Type.Object({ ok: Type.Literal(false), ...ItemError }),
]);
export type CreateOrdersItemResult = Static<typeof CreateOrdersItemResult>;

const exampleOrder = {
  orderId: "1041",
  clientOrderId: "q-bid-1",
  marketId: "12",
  outcomeId: "31",
  optionId: "61",
  status: "OPEN",
  side: "BUY",
  orderType: "LIMIT",
  timeInForce: "GTC",
  limitPrice: "0.48",
  shares: "100",
  amount: null,
  filledShares: "0",
  avgPrice: null,
  fee: "0",
  expiresAt: null,
  createdAt: "2026-11-22T10:00:00Z",
  trades: [],
};

export const CreateOrdersResult = Type.Object(
  {
    results: Type.Array(CreateOrdersItemResult, {
      description:
        "One per order, in the order sent: `{ok: true, order}` (as create-order answers) or `{ok: false, code, message}`",
    }),
  },
  {
    examples: [
      {
        results: [
          { ok: true, order: exampleOrder },
          { ok: false, code: 1001, message: "bad request: Post-only order would trade at once" },
        ],
      },
    ],
  },
);
export type CreateOrdersResult = Static<typeof CreateOrdersResult>;

export const CancelOrdersRequest = Type.Object(
  {
    orderIds: Type.Array(RequestId, {
      minItems: 1,
      maxItems: cancelOrdersIdsMax,
      description: `1 to ${cancelOrdersIdsMax} order ids; an id listed twice is cancelled once`,
    }),
  },
  { examples: [{ orderIds: ["1041", "1042", "1043"] }] },
);
export type CancelOrdersRequest = Static<typeof CancelOrdersRequest>;

export const CancelOrdersResult = Type.Object(
  {
    cancelled: Type.Array(Id, { description: "Orders cancelled by this call, in the order sent" }),
    notCancelled: Type.Array(Type.Object({ orderId: Type.String(), ...ItemError }), {
      description: "The others, each with what cancel-order would have answered",
    }),
  },
  {
    examples: [
      {
        cancelled: ["1041", "1043"],
        notCancelled: [{ orderId: "1042", code: 1001, message: "bad request: Order is not cancellable" }],
      },
    ],
  },
);
export type CancelOrdersResult = Static<typeof CancelOrdersResult>;

export const CancelAllRequest = Type.Object(
  {
    marketId: Type.Optional(RequestId),
    outcomeId: Type.Optional(
      Type.Union([Type.String({ maxLength: 32 }), Type.Number()], {
        description: "One book of the market; needs marketId",
      }),
    ),
  },
  { examples: [{}, { marketId: "12" }, { marketId: "12", outcomeId: "31" }] },
);
export type CancelAllRequest = Static<typeof CancelAllRequest>;

export const CancelAllResult = Type.Object(
  {
    cancelled: Type.Array(Id, { description: "Every order this call cancelled, oldest first" }),
    count: Type.Integer({ description: "How many" }),
  },
  { examples: [{ cancelled: ["1041", "1043"], count: 2 }] },
);
export type CancelAllResult = Static<typeof CancelAllResult>;

export const AmendOrderRequest = Type.Object(
  {
    orderId: RequestId,
    shares: Type.Optional(
      Type.Number({ description: "The new total size in shares (more than what has filled)" }),
    ),
    limitPrice: Type.Optional(Type.Number({ description: "The new LIMIT price, on the market's tick" })),
  },
  {
    examples: [
      { orderId: "1041", shares: 60 },
      { orderId: "1041", limitPrice: 0.49 },
    ],
  },
);
export type AmendOrderRequest = Static<typeof AmendOrderRequest>;
export { Order as AmendedOrder };

export const HeartbeatRequest = Type.Object(
  {
    timeoutSeconds: Type.Integer({
      description: `0 disarms the dead-man's switch; ${heartbeatTimeoutSecondsMin} to ${heartbeatTimeoutSecondsMax} arms or re-arms it`,
    }),
  },
  { examples: [{ timeoutSeconds: 15 }, { timeoutSeconds: 0 }] },
);
export type HeartbeatRequest = Static<typeof HeartbeatRequest>;

export const HeartbeatResult = Type.Object(
  {
    armed: Type.Boolean(),
    expiresAt: Type.Union(
      [Type.String({ description: "ISO 8601 UTC, millisecond precision" }), Type.Null()],
      {
        description:
          "When every open order is cancelled unless another heartbeat comes first; null when disarmed",
      },
    ),
  },
  {
    examples: [
      { armed: true, expiresAt: "2026-11-22T10:00:15.042Z" },
      { armed: false, expiresAt: null },
    ],
  },
);
export type HeartbeatResult = Static<typeof HeartbeatResult>;
