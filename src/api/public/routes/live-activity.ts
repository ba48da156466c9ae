// GET /live-activity/events/{condition_id}, clob-client's getMarketTradesEvents: the latest trades
// of one condition (a predex outcome), newest first. Each trade is told once, from its taker: the
// token its order named, its side and the price in that token's terms, as Polymarket's trade feed
// tells a fill from the taker's order. predex trades are not on chain and their users are a
// partner's customers: `transaction_hash` is the trade id (as /ws/market's last_trade_price gives
// it) and the `user` fields are empty (docs/decisions.md, "Polymarket-compatible public reads").

import { Type } from "typebox";
import { formatAtoms } from "../../../core/money.js";
import { conditionIdOf } from "../../../realtime/condition-ids.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { conditionIndexFor } from "../polymarket/conditions.js";
import {
  handlePolymarketError,
  marketNotFound,
  PolymarketError,
  PolymarketFailure,
  sendPolymarketError,
} from "../polymarket/errors.js";
import { baseFeeBpsOf } from "../polymarket/market-parameters.js";
import { marketImageOf, publishedOutcomeOf, questionOf, slugOf } from "../polymarket/market-view.js";
import { ConditionParams, MarketTradeEvent, tag } from "../polymarket/schemas.js";

/** Trades one answer tells at most, newest first. */
export const marketTradeEventsMax = 100;

const noUser = {
  address: "",
  username: "",
  profile_picture: "",
  optimized_profile_picture: "",
  pseudonym: "",
} as const;

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);
  const conditions = conditionIndexFor(deps);

  app.get(
    "/live-activity/events/:condition_id",
    {
      schema: {
        summary: "The latest trades of one market (condition), newest first",
        description: `At most ${marketTradeEventsMax}. Each trade once, as its taker made it: the token its order named, its side and the price in that token's terms. \`transaction_hash\` is the trade id; \`user\` is empty (predex does not publish who traded).`,
        tags: [tag],
        params: ConditionParams,
        response: { 200: Type.Array(MarketTradeEvent), 404: PolymarketError, 503: PolymarketError },
      },
    },
    async (request, reply) => {
      const found = await deps.engine.read((state) => {
        const outcome = publishedOutcomeOf(state, conditions, request.params.condition_id);
        if (outcome === undefined) return marketNotFound;
        const market = state.markets.get(outcome.marketId)!;
        const options = outcome.optionIds.map((optionId) => state.options.get(optionId)!);
        const question = questionOf(market, outcome);
        return {
          marketId: market.marketId,
          conditionId: conditionIdOf(market.marketId, outcome.outcomeId),
          question,
          slug: slugOf(question, outcome.outcomeId),
          feeRateBps: baseFeeBpsOf({ market, outcome, option: options[0]! }, state),
          options: options.map((option, index) => ({ ...option, index })),
        };
      });
      if (found instanceof PolymarketFailure) return sendPolymarketError(reply, found);
      const [trades, catalog] = await Promise.all([
        deps.consoleQueries.recentTrades(found.options[0]!.optionId, marketTradeEventsMax),
        deps.exchangeReadModels.market(found.marketId),
      ]);
      const icon = marketImageOf(catalog);
      return trades.flatMap((trade) => {
        const option = found.options.find((each) => each.optionId === trade.taker.optionId);
        if (option === undefined) return [];
        return [
          {
            event_type: "trade" as const,
            market: {
              condition_id: found.conditionId,
              asset_id: option.assetId,
              question: found.question,
              icon,
              slug: found.slug,
            },
            user: noUser,
            side: trade.taker.side,
            size: formatAtoms(trade.shares),
            fee_rate_bps: String(found.feeRateBps),
            price: formatAtoms(trade.taker.price),
            outcome: option.title,
            outcome_index: option.index,
            transaction_hash: String(trade.tradeId),
            timestamp: String(Math.floor(trade.timeMs / 1000)),
          },
        ];
      });
    },
  );
});
