// Shared pieces of the admin schemas. Ids in admin bodies may be strings or numbers (DESIGN §5).

import { type Static, Type } from "typebox";
import { MarketDetail } from "./partner/market-detail.js";

export const FlexibleId = Type.Union(
  [Type.String({ pattern: "^[0-9]{1,15}$" }), Type.Integer({ minimum: 1 })],
  {
    description: "Numeric id, as a string or a number",
  },
);

/**
 * The market detail the operator sees: spec 000's detail (src/contract/partner/market-detail.ts)
 * and whether the market is exclusive (DESIGN §10). The partner's detail keeps the spec's fields.
 */
export const AdminMarketDetail = Type.Object({
  ...MarketDetail.properties,
  exclusive: Type.Boolean({
    description:
      "An exclusive event: exactly one outcome wins, and No shares convert (POST /ordering/convert)",
  }),
});
export type AdminMarketDetail = Static<typeof AdminMarketDetail>;
