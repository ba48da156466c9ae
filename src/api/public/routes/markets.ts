// The market listings of Polymarket's CLOB API, one market object per predex outcome (a binary
// condition, polymarket/market-view.ts), and one market by condition id:
//  - GET /markets and /simplified-markets: every published market of every model;
//  - GET /sampling-markets and /sampling-simplified-markets: the outcomes a maker can quote on now
//    (an open order book; Polymarket's "sampling" markets are the reward-eligible live ones, and
//    predex pays no rewards);
//  - GET /markets/{condition_id}.
// Pages follow Polymarket's cursor: `next_cursor` is the base64 of the next offset, "MA==" (0) the
// first page and "LTE=" (-1) the end; clob-client's getMarkets(next_cursor) and the others walk them.

import type { TSchema } from "typebox";
import type { ExchangeState } from "../../../core/exchange.js";
import type { Outcome } from "../../../core/market.js";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes, type TypeBoxApp } from "../../shared/typebox-app.js";
import { conditionIndexFor } from "../polymarket/conditions.js";
import { decodeCursor, encodeCursor, endCursor, invalidCursor } from "../polymarket/cursors.js";
import {
  handlePolymarketError,
  marketNotFound,
  PolymarketError,
  PolymarketFailure,
  sendPolymarketError,
} from "../polymarket/errors.js";
import {
  type ListedOutcome,
  listedOutcome,
  marketObject,
  publishedOutcomeOf,
  publishedOutcomes,
  samplingOutcomes,
  simplifiedMarketObject,
} from "../polymarket/market-view.js";
import {
  ConditionParams,
  Market,
  MarketsPage,
  MarketsQuery,
  SimplifiedMarketsPage,
  tag,
} from "../polymarket/schemas.js";

export const marketsPageSizeMax = 500;

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

interface Listing {
  readonly path: string;
  readonly summary: string;
  readonly selection: string;
  readonly outcomes: (state: Readonly<ExchangeState>) => Outcome[];
  /** Full market objects (with the catalogue's text and images) or simplified ones (live fields only). */
  readonly simplified: boolean;
}

const listings: readonly Listing[] = [
  {
    path: "/markets",
    summary: "Markets, one per binary outcome, cursor-paged",
    selection: "Every published market (drafts never), all models.",
    outcomes: publishedOutcomes,
    simplified: false,
  },
  {
    path: "/simplified-markets",
    summary: "Markets, simplified, cursor-paged",
    selection:
      "Every published market, as /markets, with only condition_id, tokens, rewards and the status flags.",
    outcomes: publishedOutcomes,
    simplified: true,
  },
  {
    path: "/sampling-markets",
    summary: "Markets a maker can quote on now, cursor-paged",
    selection:
      "Polymarket's sampling markets are its reward-eligible live ones; predex pays no rewards, so these are the order books that accept orders now.",
    outcomes: samplingOutcomes,
    simplified: false,
  },
  {
    path: "/sampling-simplified-markets",
    summary: "Markets a maker can quote on now, simplified, cursor-paged",
    selection: "The markets of /sampling-markets, simplified as /simplified-markets.",
    outcomes: samplingOutcomes,
    simplified: true,
  },
];

function addListing(app: TypeBoxApp, deps: PlatformDeps, listing: Listing): void {
  const page: TSchema = listing.simplified ? SimplifiedMarketsPage : MarketsPage;
  app.get(
    listing.path,
    {
      schema: {
        summary: listing.summary,
        description: `${listing.selection} Polymarket's PaginationPayload: \`{limit, count, next_cursor, data}\`; at most ${marketsPageSizeMax} a page. Pass the previous \`next_cursor\`; "${endCursor}" means there is no next page.`,
        tags: [tag],
        querystring: MarketsQuery,
        response: { 200: page, 400: PolymarketError, 503: PolymarketError },
      },
    },
    async (request, reply) => {
      const offset = decodeCursor(request.query.next_cursor);
      const limit = pageSize(request.query.limit);
      if (offset === null || limit === null) return sendPolymarketError(reply, invalidCursor);
      const found = await deps.engine.read((state) => {
        if (offset < 0) return { listed: [], total: 0 };
        const outcomes = listing.outcomes(state);
        return {
          listed: outcomes.slice(offset, offset + limit).map((outcome) => listedOutcome(state, outcome)),
          total: outcomes.length,
        };
      });
      const end = offset < 0 ? -1 : offset + found.listed.length;
      return {
        limit,
        count: found.listed.length,
        next_cursor: end < 0 || end >= found.total ? endCursor : encodeCursor(end),
        data: listing.simplified
          ? found.listed.map(simplifiedMarketObject)
          : await withCatalog(deps, found.listed),
      };
    },
  );
}

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);
  const conditions = conditionIndexFor(deps);
  for (const listing of listings) addListing(app, deps, listing);

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
      const live = await deps.engine.read((state) => {
        const outcome = publishedOutcomeOf(state, conditions, request.params.condition_id);
        return outcome === undefined ? marketNotFound : listedOutcome(state, outcome);
      });
      if (live instanceof PolymarketFailure) return sendPolymarketError(reply, live);
      const [market] = await withCatalog(deps, [live]);
      return market;
    },
  );
});
