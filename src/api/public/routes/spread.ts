// GET /spread, POST /spreads and GET /spreads, Polymarket-compatible: best ask − best bid of a token
// as a decimal string (GET /orderbook/price's spread; an AMM pool's buy − sell price; 0 for a
// parimutuel pool, whose one price is on both sides).

import { quoteRoutes } from "../polymarket/quote-routes.js";
import { Spread } from "../polymarket/schemas.js";

export default quoteRoutes({
  field: "spread",
  missing: "spread",
  one: {
    path: "/spread",
    summary: "Spread of one token",
    description: "`{spread}`. A book without bids or without asks has no spread (404).",
    response: Spread,
  },
  many: {
    path: "/spreads",
    summary: "Spreads of many tokens",
    queryDescription: "`token_ids` comma-separated, at most 500; the same answer as POST /spreads.",
    bodyDescription: "Body `[{token_id}]`, at most 500; tokens without a spread are left out.",
  },
});
