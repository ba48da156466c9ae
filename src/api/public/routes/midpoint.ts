// GET /midpoint, GET /midpoints and POST /midpoints, Polymarket-compatible: the midpoint of a
// token's best bid and ask (an AMM's marginal price; a parimutuel pool's chance), as a decimal
// string. The numbers are GET /orderbook/price's midPrice.

import { quoteRoutes } from "../polymarket/quote-routes.js";
import { Midpoint } from "../polymarket/schemas.js";

export default quoteRoutes({
  field: "mid",
  missing: "midpoint",
  one: {
    path: "/midpoint",
    summary: "Midpoint of one token",
    description: "`{mid}`. A book without bids or without asks has no midpoint (404).",
    response: Midpoint,
  },
  many: {
    path: "/midpoints",
    summary: "Midpoints of many tokens",
    queryDescription: "`token_ids` comma-separated, at most 500; tokens without a midpoint are left out.",
    bodyDescription: "Body `[{token_id}]`, at most 500; tokens without a midpoint are left out.",
  },
});
