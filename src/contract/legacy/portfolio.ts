// POST /api/order/openapi/positions and GET /api/order/openapi/query-user-activity (spec 001 lists
// them; their records are "not shown", so the fields are ours: docs/decisions.md). Pagination goes
// beside `data`: current, size, total, pages, totalRow, empty.

import { type TSchema, Type } from "typebox";
import { pageNumberMax } from "../partner/pagination.js";

export const PageParameters = {
  page: Type.Optional(
    Type.Integer({ maximum: pageNumberMax, description: `1-based, at most ${pageNumberMax}; default 1` }),
  ),
  pageSize: Type.Optional(Type.Integer({ description: "Default 10; larger than 100 is capped at 100" })),
};

export const PositionsRequest = Type.Object({
  marketId: Type.Optional(Type.Integer({ minimum: 1, description: "Only this market's positions" })),
  ...PageParameters,
});

export const ActivityQuery = Type.Object({
  marketId: Type.Optional(Type.Integer({ minimum: 1 })),
  ...PageParameters,
});

export const PositionRecord = Type.Object({
  positionId: Type.Integer(),
  marketId: Type.Integer(),
  outcomeId: Type.Integer(),
  optionId: Type.Integer(),
  shares: Type.Number({ description: "Free shares" }),
  frozenShares: Type.Number({ description: "Shares in resting SELL orders" }),
  avgPrice: Type.Union([Type.Number(), Type.Null()]),
  cost: Type.Number({ description: "USDT the held shares cost, fees included" }),
  realizedPnl: Type.Number(),
});

export const ActivityRecord = Type.Object({
  tradeId: Type.Integer(),
  orderId: Type.Integer(),
  marketId: Type.Integer(),
  outcomeId: Type.Integer(),
  optionId: Type.Integer(),
  direction: Type.String({ description: "BUY or SELL" }),
  role: Type.String({ description: "MAKER or TAKER" }),
  price: Type.Number(),
  shares: Type.Number(),
  amount: Type.Number({ description: "price × shares, fees excluded" }),
  fee: Type.Number(),
  tranDate: Type.String({ description: "ISO 8601" }),
});

/** The legacy envelope of a paginated read: `data` is the page's array, the counts beside it. */
export function PagedEnvelope<Item extends TSchema>(item: Item) {
  return Type.Object({
    code: Type.Integer(),
    msg: Type.String(),
    data: Type.Array(item),
    current: Type.Integer(),
    size: Type.Integer(),
    total: Type.Integer(),
    pages: Type.Integer(),
    totalRow: Type.Integer(),
    empty: Type.Boolean(),
  });
}
