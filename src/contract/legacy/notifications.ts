// GET /api/user/notification/list (spec 001 step 11; the record is ours: docs/decisions.md).

import { Type } from "typebox";
import { PageParameters } from "./portfolio.js";

export const NotificationQuery = Type.Object({
  userId: Type.Optional(Type.String({ maxLength: 32, description: "Required: the token's own user" })),
  ...PageParameters,
});

export const Notification = Type.Object({
  id: Type.String({ description: "request:<fgRequestId> or market:<marketId>" }),
  userId: Type.Integer(),
  type: Type.String({ description: "ORDER_RESULT, MARKET_SETTLED or MARKET_VOIDED" }),
  refId: Type.String({ description: "The fgRequestId, or the market id" }),
  marketId: Type.Union([Type.Integer(), Type.Null()]),
  title: Type.String(),
  content: Type.String({ description: "JSON text with the details" }),
  createTime: Type.String({ description: "ISO 8601" }),
});
