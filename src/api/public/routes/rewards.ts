// GET /rewards/markets/current and GET /rewards/markets/{condition_id}, clob-client's
// getCurrentRewards and getRawRewardsForMarket: Polymarket's liquidity-rewards configurations.
// predex pays no liquidity rewards, so both answer the truth in Polymarket's page shape: an empty
// last page. A condition id that names no published market is 404, as /markets/{id} answers.

import { defineRoutes } from "../../shared/typebox-app.js";
import { conditionIndexFor } from "../polymarket/conditions.js";
import { decodeCursor, endCursor, invalidCursor } from "../polymarket/cursors.js";
import {
  handlePolymarketError,
  marketNotFound,
  PolymarketError,
  sendPolymarketError,
} from "../polymarket/errors.js";
import { publishedOutcomeOf } from "../polymarket/market-view.js";
import { ConditionParams, MarketsQuery, RewardsPage, tag } from "../polymarket/schemas.js";

/** Polymarket's rewards pages hold 100 entries; predex's are always empty. */
const rewardsPageSize = 100;
const noRewards = { limit: rewardsPageSize, count: 0, next_cursor: endCursor, data: [] };

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);
  const conditions = conditionIndexFor(deps);
  const description = 'predex pays no liquidity rewards: always an empty last page (`next_cursor` "LTE=").';

  app.get(
    "/rewards/markets/current",
    {
      schema: {
        summary: "Markets with a liquidity-rewards program now",
        description,
        tags: [tag],
        querystring: MarketsQuery,
        response: { 200: RewardsPage, 400: PolymarketError },
      },
    },
    async (request, reply) => {
      if (decodeCursor(request.query.next_cursor) === null) return sendPolymarketError(reply, invalidCursor);
      return noRewards;
    },
  );

  app.get(
    "/rewards/markets/:condition_id",
    {
      schema: {
        summary: "The liquidity-rewards configurations of one market",
        description,
        tags: [tag],
        params: ConditionParams,
        querystring: MarketsQuery,
        response: { 200: RewardsPage, 400: PolymarketError, 404: PolymarketError, 503: PolymarketError },
      },
    },
    async (request, reply) => {
      if (decodeCursor(request.query.next_cursor) === null) return sendPolymarketError(reply, invalidCursor);
      const published = await deps.engine.read(
        (state) => publishedOutcomeOf(state, conditions, request.params.condition_id) !== undefined,
      );
      return published ? noRewards : sendPolymarketError(reply, marketNotFound);
    },
  );
});
