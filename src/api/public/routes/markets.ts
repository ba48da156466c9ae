// GET /markets and GET /markets/{condition_id}, Polymarket-compatible: one market object per predex
// outcome (a binary condition, polymarket/market-view.ts), every published market of every model.
// Pages follow Polymarket's cursor: `next_cursor` is the base64 of the next offset, "MA==" (0) the
// first page and "LTE=" (-1) the end; clob-client's getMarkets(next_cursor) walks them.

import { ConditionIndex } from "../../../realtime/condition-ids.js";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import {
  handlePolymarketError,
  marketNotFound,
  PolymarketError,
  PolymarketFailure,
  polymarketErrors,
  sendPolymarketError,
} from "../polymarket/errors.js";
import {
  type ListedOutcome,
  listedOutcome,
  marketObject,
  publishedOutcomes,
} from "../polymarket/market-view.js";
import { ConditionParams, Market, MarketsPage, MarketsQuery, tag } from "../polymarket/schemas.js";

export const marketsPageSizeMax = 500;
export const firstCursor = "MA==";
export const endCursor = "LTE=";

const invalidCursor = new PolymarketFailure(400, polymarketErrors.invalidCursor);

function encodeCursor(offset: number): string {
  return Buffer.from(String(offset), "utf8").toString("base64");
}

/** The offset a cursor names; null when it is not one this server (or Polymarket) hands out. */
function decodeCursor(cursor: string | undefined): number | null {
  if (cursor === undefined || cursor === "") return 0;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64").toString("utf8");
  if (text === "-1") return -1;
  if (!/^(0|[1-9][0-9]{0,9})$/.test(text)) return null;
  return Number(text);
}

function pageSize(limit: string | undefined): number | null {
  if (limit === undefined || limit === "") return marketsPageSizeMax;
  if (!/^[1-9][0-9]{0,3}$/.test(limit)) return null;
  return Math.min(Number(limit), marketsPageSizeMax);
}

async function withCatalog(deps: PlatformDeps, outcomes: readonly ListedOutcome[]) {
  const catalogs = new Map<number, Awaited<ReturnType<PlatformDeps["exchangeReadModels"]["market"]>>>();
  for (const outcome of outcomes) {
    if (!catalogs.has(outcome.marketId)) {
      catalogs.set(outcome.marketId, await deps.exchangeReadModels.market(outcome.marketId));
    }
  }
  return outcomes.map((outcome) => marketObject(outcome, catalogs.get(outcome.marketId)));
}

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);
  const conditions = new ConditionIndex();

  app.get(
    "/markets",
    {
      schema: {
        summary: "Markets, one per binary outcome, cursor-paged",
        description: `Polymarket's PaginationPayload: \`{limit, count, next_cursor, data}\`; at most ${marketsPageSizeMax} a page. Pass the previous \`next_cursor\`; "${endCursor}" means there is no next page.`,
        tags: [tag],
        querystring: MarketsQuery,
        response: { 200: MarketsPage, 400: PolymarketError, 503: PolymarketError },
      },
    },
    async (request, reply) => {
      const offset = decodeCursor(request.query.next_cursor);
      const limit = pageSize(request.query.limit);
      if (offset === null || limit === null) return sendPolymarketError(reply, invalidCursor);
      const page = await deps.engine.read((state) => {
        if (offset < 0) return { listed: [], total: 0 };
        const outcomes = publishedOutcomes(state);
        return {
          listed: outcomes.slice(offset, offset + limit).map((outcome) => listedOutcome(state, outcome)),
          total: outcomes.length,
        };
      });
      const end = offset < 0 ? -1 : offset + page.listed.length;
      return {
        limit,
        count: page.listed.length,
        next_cursor: end < 0 || end >= page.total ? endCursor : encodeCursor(end),
        data: await withCatalog(deps, page.listed),
      };
    },
  );

  app.get(
    "/markets/:condition_id",
    {
      schema: {
        summary: "One market by condition id",
        tags: [tag],
        params: ConditionParams,
        response: { 200: Market, 404: PolymarketError, 503: PolymarketError },
      },
    },
    async (request, reply) => {
      const conditionId = request.params.condition_id;
      const live = await deps.engine.read((state) => {
        const outcomeId = conditions.outcomeIdOf(state, conditionId);
        const outcome = outcomeId === undefined ? undefined : state.outcomes.get(outcomeId);
        if (outcome === undefined || state.markets.get(outcome.marketId)?.status === "draft")
          return marketNotFound;
        return listedOutcome(state, outcome);
      });
      if (live instanceof PolymarketFailure) return sendPolymarketError(reply, live);
      const [market] = await withCatalog(deps, [live]);
      return market;
    },
  );
});
