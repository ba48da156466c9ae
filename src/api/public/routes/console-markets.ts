// The read routes the market pages (web/market) need on the public host, under /console-api/ so
// they never meet the Polymarket-style routes of the same listener: the category tree, the market
// list (hottest first, or a search), one market with every option's asset id (the key of
// /ws/market and /prices-history), and a market's recent trades. No credentials, read only; the
// same catalogue and read models as the signed host's /markets routes, in the current envelope.

import { Type } from "typebox";
import { isLanguage, negotiateLanguage } from "../../../catalog/languages.js";
import { CategoryTree, MarketListRecord } from "../../../contract/partner/catalogue.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { MarketDetail } from "../../../contract/partner/market-detail.js";
import { isoSeconds, parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { formatAtoms } from "../../../core/money.js";
import { badRequest, sendRejection, sendServiceError } from "../../partner/errors.js";
import { PageFields, PageFieldsSchema, pageFields, resolvePage } from "../../partner/pagination.js";
import { defineRoutes } from "../../shared/typebox-app.js";

export const consoleApiPrefix = "/console-api";
/** Trades a market page shows at most. */
export const recentTradesMax = 100;
const tags = ["Console"];

const MarketsQuery = Type.Object({
  ...PageFields,
  categoryId: Type.Optional(Type.String({ maxLength: 32, description: "Only this category's markets" })),
  status: Type.Optional(
    Type.String({ maxLength: 16, description: "open, closed, resolving, settled, void" }),
  ),
  keyword: Type.Optional(
    Type.String({ maxLength: 200, description: "Search titles, tags and descriptions instead (best first)" }),
  ),
});

const MarketsPage = Type.Object({ ...PageFieldsSchema, records: Type.Array(MarketListRecord) });

const Asset = Type.Object({
  outcomeId: Type.String(),
  optionId: Type.String(),
  optionIndex: Type.Integer({ description: "0 = Yes, 1 = No" }),
  assetId: Type.String({ description: "The option's CLOB token id: /ws/market and /prices-history" }),
});
const ConsoleMarket = Type.Object({
  market: MarketDetail,
  assets: Type.Array(Asset),
  exclusive: Type.Boolean({
    description:
      "An exclusive event (DESIGN §10): exactly one outcome wins; the page shows every outcome's Yes price side by side",
  }),
});

const Trade = Type.Object({
  tradeId: Type.String(),
  price: Type.String({ description: "In the asked option's terms" }),
  shares: Type.String(),
  side: Type.String({ description: "The taker's side, in the asked option's terms" }),
  time: Type.String({ description: "ISO 8601 UTC" }),
  timeMs: Type.Integer(),
});
const TradesQuery = Type.Object({
  optionId: Type.Optional(Type.String({ maxLength: 32, description: "Default: the first outcome's Yes" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: recentTradesMax, description: "Default 30" })),
});
const MarketParams = Type.Object({ marketId: Type.String({ maxLength: 32 }) });

export default defineRoutes((app, deps) => {
  const queries = deps.consoleQueries;

  app.get(
    `${consoleApiPrefix}/categories`,
    {
      schema: {
        summary: "The category tree (online nodes)",
        tags,
        querystring: Type.Object({ language: Type.Optional(Type.String({ maxLength: 32 })) }),
        response: partnerResponses(CategoryTree),
      },
    },
    async (request, reply) => {
      const { language } = request.query;
      if (language !== undefined && !isLanguage(language))
        return sendServiceError(reply, badRequest("language is not supported"));
      return ok(
        await deps.categories.tree(language ?? negotiateLanguage(request.headers["accept-language"])),
      );
    },
  );

  app.get(
    `${consoleApiPrefix}/markets`,
    {
      schema: {
        summary: "Listed markets, hottest first, or the markets a keyword finds",
        description: "Drafts are never listed. With `keyword`, `categoryId` and `status` are not applied.",
        tags,
        querystring: MarketsQuery,
        response: partnerResponses(MarketsPage),
      },
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const { categoryId, status } = request.query;
      const keyword = request.query.keyword?.trim() ?? "";
      const found =
        keyword === ""
          ? await deps.catalogue.list({ categoryId, status }, page.value)
          : await deps.catalogue.search({ keyword, searchBy: "Market" }, page.value);
      return ok({ ...pageFields(page.value, found.total), records: found.records });
    },
  );

  app.get(
    `${consoleApiPrefix}/markets/:marketId`,
    {
      schema: {
        summary:
          "One market (the detail of spec 000), the asset id of each option, and whether it is exclusive",
        tags,
        params: MarketParams,
        response: partnerResponses(ConsoleMarket),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.marketId);
      const catalog = marketId === undefined ? undefined : await deps.exchangeReadModels.market(marketId);
      const view = marketId === undefined ? undefined : await deps.catalogue.viewDetail(marketId);
      if (catalog === undefined || view === undefined)
        return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      const assets = catalog.outcomes.flatMap((outcome) =>
        outcome.options.map((option) => ({
          outcomeId: String(outcome.outcomeId),
          optionId: String(option.optionId),
          optionIndex: option.optionIndex,
          assetId: option.assetId,
        })),
      );
      return ok({ market: { ...view.base, ...view.activity }, assets, exclusive: catalog.exclusive });
    },
  );

  app.get(
    `${consoleApiPrefix}/markets/:marketId/trades`,
    {
      schema: {
        summary: "A market's latest trades, newest first",
        tags,
        params: MarketParams,
        querystring: TradesQuery,
        response: partnerResponses(Type.Array(Trade)),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.marketId);
      const catalog = marketId === undefined ? undefined : await deps.exchangeReadModels.market(marketId);
      if (catalog === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      const options = catalog.outcomes.flatMap((outcome) => outcome.options);
      const wanted = request.query.optionId;
      const option =
        wanted === undefined ? options[0] : options.find((each) => String(each.optionId) === wanted.trim());
      if (option === undefined) return sendRejection(reply, reject("OPTION_NOT_FOUND"));
      const rows = await queries.recentTrades(option.optionId, request.query.limit ?? 30);
      return ok(
        rows.map((row) => ({
          tradeId: String(row.tradeId),
          price: formatAtoms(row.price),
          shares: formatAtoms(row.shares),
          side: row.takerSide,
          time: isoSeconds(row.timeMs),
          timeMs: row.timeMs,
        })),
      );
    },
  );
});
