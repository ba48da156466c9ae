// GET /last-trade-price, POST /last-trades-prices and GET /last-trades-prices, Polymarket-compatible:
// the price of a token's last trade (any model: book, AMM or parimutuel) and its side; "0.5" and ""
// before the first trade, as Polymarket answers. The price is GET /orderbook/price's lastTradePrice.

import { Type } from "typebox";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { addTokenBatchRoutes } from "../polymarket/batch.js";
import {
  handlePolymarketError,
  invalidTokenId,
  noOrderbook,
  sendPolymarketError,
} from "../polymarket/errors.js";
import { LastTradeSides } from "../polymarket/last-trade-sides.js";
import {
  LastTradePrice,
  TokenLastTradePrice,
  TokenQuery,
  tag,
  tokenReadErrors,
} from "../polymarket/schemas.js";
import { lastTradePriceText, publishedToken } from "../polymarket/token-quotes.js";

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);
  const sides = new LastTradeSides(deps.engine);
  app.addHook("onClose", async () => sides.close());

  /** The last trade of each known token, in the order asked; unknown tokens are left out. */
  const lastTrades = (platform: PlatformDeps, tokenIds: readonly string[]) =>
    platform.engine.read((state) => {
      const answer: { token_id: string; price: string; side: string }[] = [];
      for (const tokenId of tokenIds) {
        const token = publishedToken(state, tokenId);
        if (token === null) continue;
        answer.push({
          token_id: tokenId,
          price: lastTradePriceText(state, token),
          side: sides.sideFor(token.outcome.outcomeId, token.option.optionId),
        });
      }
      return answer;
    });

  app.get(
    "/last-trade-price",
    {
      schema: {
        summary: "Last trade price of one token",
        description:
          '`{price, side}`: side is BUY when the last trade\'s taker bought this token, SELL when it sold it; "0.5" and "" before any trade (the side is also "" for a trade made before the server last started).',
        tags: [tag],
        querystring: TokenQuery,
        response: { 200: LastTradePrice, ...tokenReadErrors },
      },
    },
    async (request, reply) => {
      const assetId = request.query.token_id.trim();
      if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
      const [last] = await lastTrades(deps, [assetId]);
      if (last === undefined) return sendPolymarketError(reply, noOrderbook);
      return { price: last.price, side: last.side };
    },
  );

  addTokenBatchRoutes(app, {
    path: "/last-trades-prices",
    summary: "Last trade prices of many tokens",
    queryDescription:
      "`token_ids` comma-separated, at most 500; the same answer as POST /last-trades-prices.",
    bodyDescription:
      "Body `[{token_id}]`, at most 500; answers `[{token_id, price, side}]`, unknown tokens left out.",
    response: Type.Array(TokenLastTradePrice),
    answer: (tokenIds) => lastTrades(deps, tokenIds),
  });
});
