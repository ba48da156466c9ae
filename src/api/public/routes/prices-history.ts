// GET /prices-history on the public host (spec 000, DESIGN §8): a bare {history:[{t,p}]}, no
// envelope and no credentials. Points are the trade prices (read models) and the per-minute samples
// (src/realtime/price-samples.ts) of the option whose asset id is `market`. Bad parameters are a
// 400 with {error}, as Polymarket answers; an unknown asset is a 404 with {error}.

import { Type } from "typebox";
import { optionByAssetId } from "../../../core/exchange.js";
import {
  bucketHistory,
  historyScanPointsMax,
  type PricePoint,
  parseHistoryQuery,
} from "../../../realtime/price-history.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const atomsPerUnit = 100_000_000;

const HistoryQuery = Type.Object(
  {
    market: Type.Optional(
      Type.String({ description: "The asset id (CLOB token id) of one option. Required." }),
    ),
    startTs: Type.Optional(Type.String({ description: "Start, unix seconds" })),
    endTs: Type.Optional(Type.String({ description: "End, unix seconds (default: now)" })),
    interval: Type.Optional(
      Type.String({ description: "1h, 6h, 1d, 1w, 1m (a month), max or all; not with startTs/endTs" }),
    ),
    fidelity: Type.Optional(Type.String({ description: "Bucket width in minutes (default 1)" })),
  },
  { additionalProperties: true },
);
const History = Type.Object({
  history: Type.Array(
    Type.Object({
      t: Type.Integer({ description: "unix seconds" }),
      p: Type.Number({ description: "price, 0 to 1" }),
    }),
  ),
});
const HistoryError = Type.Object({ error: Type.String() });

export default defineRoutes((app, deps) => {
  const samples = deps.priceSamples;
  app.get(
    "/prices-history",
    {
      schema: {
        summary: "Price history of one option",
        description:
          "Trade prices and one sampled price per minute while the market is open. The last point of each `fidelity`-minute bucket is returned, oldest first; at most 5,000 points (buckets widen to fit).",
        tags: ["Public market data"],
        querystring: HistoryQuery,
        response: { 200: History, 400: HistoryError, 404: HistoryError },
      },
    },
    async (request, reply) => {
      const parsed = parseHistoryQuery(request.query as Record<string, unknown>, deps.nowMs());
      if (!parsed.ok) return reply.code(400).send({ error: parsed.error });
      const { assetId, fromMs, toMs, fidelityMinutes } = parsed.value;
      const option = await deps.engine.read((state) => optionByAssetId(state, assetId));
      if (option === null) return reply.code(404).send({ error: "market not found" });
      const [trades, sampled] = await Promise.all([
        deps.exchangeReadModels.pricePoints(option.optionId, fromMs, toMs, historyScanPointsMax),
        samples.range(option.optionId, fromMs, toMs, historyScanPointsMax),
      ]);
      const points: PricePoint[] = [
        ...trades.map((point) => ({ timeMs: point.timeMs, price: Number(point.price) / atomsPerUnit })),
        ...sampled.map((sample) => ({ timeMs: sample.timeMs, price: sample.priceAtoms / atomsPerUnit })),
      ];
      return { history: bucketHistory(points, fidelityMinutes) };
    },
  );
});
