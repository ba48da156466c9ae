// POST /admin/markets, /admin/markets/{id}/open, /admin/markets/{id}/close (DESIGN §5): the
// operator creates a draft market (orderbook, AMM or parimutuel), publishes it, and closes it.
// Every answer is the market detail of spec 000.

import { type Static, Type } from "typebox";
import { AdminMarketDetail, FlexibleId } from "../../../contract/admin.js";
import { NonEmptyString, ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { type CreateMarketCommand, createMarketCommand } from "../../../core/commands.js";
import { type Rejection, reject } from "../../../core/errors.js";
import { feeBpsMax, outcomesPerMarketMax, titleLengthMax } from "../../../core/limits.js";
import { parseAtoms } from "../../../core/money.js";
import type { PoolTermsInput } from "../../../core/pools/models.js";
import { type CatalogDetailsInput, marketDetailsOf } from "../../../store/market-details.js";
import type { PlatformDeps } from "../../deps.js";
import { sendRejection } from "../../partner/errors.js";
import { parseIsoTime } from "../../partner/order-command.js";
import { HttpUrl } from "../../shared/http-url.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { loadAdminMarketDetail } from "../market-detail.js";

const longTextLengthMax = 20_000;
const tagsLengthMax = 1_000;

const Bps = Type.Integer({
  minimum: 0,
  maximum: feeBpsMax,
  description: "Basis points (0 to 1000), default 0",
});
const DecimalInput = Type.Union([Type.Number(), Type.String({ maxLength: 32 })]);

const CreateMarketRequest = Type.Object({
  title: NonEmptyString({ maxLength: titleLengthMax }),
  description: Type.Optional(Type.String({ maxLength: longTextLengthMax })),
  rules: Type.Optional(Type.String({ maxLength: longTextLengthMax })),
  categoryId: FlexibleId,
  tags: Type.Optional(Type.String({ maxLength: tagsLengthMax, description: "Comma-separated" })),
  modelType: Type.Optional(
    Type.Enum(["orderbook", "AMM", "parimutuel"], { description: "Pricing model, default orderbook" }),
  ),
  tickSize: Type.Optional(DecimalInput),
  minOrderSize: Type.Optional(DecimalInput),
  makerFee: Type.Optional(Bps),
  takerFee: Type.Optional(Bps),
  buyFee: Type.Optional(Bps),
  sellFee: Type.Optional(Bps),
  marketOrderPriceProtection: Type.Optional(DecimalInput),
  limitOrderPriceProtection: Type.Optional(DecimalInput),
  startTime: Type.String({ maxLength: 40, description: "ISO 8601" }),
  endTime: Type.String({ maxLength: 40, description: "ISO 8601" }),
  creatorId: Type.Optional(FlexibleId),
  topic: Type.Optional(Type.String({ maxLength: 256 })),
  dataResource: Type.Optional(HttpUrl("Where the result will be read: an http(s) URL")),
  marketLogo: Type.Optional(HttpUrl()),
  marketBanner: Type.Optional(HttpUrl()),
  outcomes: Type.Array(
    Type.Object({
      name: NonEmptyString({ maxLength: titleLengthMax }),
      title: Type.Optional(Type.String({ maxLength: titleLengthMax })),
      description: Type.Optional(Type.String({ maxLength: longTextLengthMax })),
      outcomeLogo: Type.Optional(HttpUrl()),
      options: Type.Array(Type.Object({ title: NonEmptyString({ maxLength: titleLengthMax }) }), {
        minItems: 1,
        maxItems: 16,
      }),
    }),
    { minItems: 1, maxItems: outcomesPerMarketMax },
  ),
  liquidity: Type.Optional(
    Type.Union([Type.Number(), Type.String({ maxLength: 32 })], {
      description: "AMM only: USDT the platform funds each outcome's pool with, at least 100 (default 100)",
    }),
  ),
  weights: Type.Optional(
    Type.Array(Type.Union([Type.Number(), Type.String({ maxLength: 32 })]), {
      maxItems: 16,
      description: "AMM only: the options' initial prices, in option order, adding up to exactly 1",
    }),
  ),
  settlementFee: Type.Optional(Bps),
  buyMinAmount: Type.Optional(DecimalInput),
  buyMaxAmount: Type.Optional(DecimalInput),
  sellMinShares: Type.Optional(DecimalInput),
  sellMaxShares: Type.Optional(DecimalInput),
  exclusive: Type.Optional(
    Type.Boolean({
      description:
        "An exclusive event (orderbook, at least two outcomes): exactly one outcome wins, and a No share of one outcome converts into a Yes share of every other (DESIGN §10). Default false",
    }),
  ),
});
type CreateMarketRequest = Static<typeof CreateMarketRequest>;

const MarketIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });

type Parsed<Value> = { ok: true; value: Value } | { ok: false; rejection: Rejection };

const invalid = (message: string): Parsed<never> => ({
  ok: false,
  rejection: reject("INVALID_INPUT", message),
});

function atomsField(field: string, value: number | string | undefined): Parsed<bigint | null> {
  if (value === undefined) return { ok: true, value: null };
  const parsed = parseAtoms(value);
  if (parsed.ok) return { ok: true, value: parsed.atoms };
  return parsed.reason === "precision"
    ? { ok: false, rejection: reject("PRECISION_EXCEEDED", `${field} has more than 8 decimal places`) }
    : invalid(`${field} must be a decimal number`);
}

async function createMarketInput(
  deps: PlatformDeps,
  body: CreateMarketRequest,
): Promise<Parsed<CreateMarketCommand>> {
  const modelType = body.modelType ?? "orderbook";
  const pool = poolTermsInput(modelType, body);
  if (!pool.ok) return pool;
  const startTimeMs = parseIsoTime(body.startTime);
  if (startTimeMs === undefined)
    return invalid("startTime must be an ISO 8601 time, e.g. 2026-11-22T10:00:00Z");
  const endTimeMs = parseIsoTime(body.endTime);
  if (endTimeMs === undefined) return invalid("endTime must be an ISO 8601 time, e.g. 2026-11-22T10:00:00Z");
  if (endTimeMs <= startTimeMs) return invalid("endTime must be after startTime");
  if (endTimeMs <= deps.nowMs()) return invalid("endTime must be in the future");
  const decimals: Record<string, bigint | null> = {};
  for (const field of [
    "tickSize",
    "minOrderSize",
    "marketOrderPriceProtection",
    "limitOrderPriceProtection",
  ] as const) {
    const parsed = atomsField(field, body[field]);
    if (!parsed.ok) return parsed;
    decimals[field] = parsed.value;
  }
  // A market is filed under a category the operator created (POST /admin/categories); an unknown
  // or deleted one is "not found", like an unknown creatorId.
  const categoryId = parseId(body.categoryId);
  if (categoryId === undefined || !(await deps.categories.isUsable(categoryId))) {
    return { ok: false, rejection: reject("CATEGORY_NOT_FOUND") };
  }
  let creatorId: number | null = null;
  let creator: { creatorName?: string; creatorImage?: string } = {};
  if (body.creatorId !== undefined) {
    const id = parseId(body.creatorId);
    const user = id === undefined ? undefined : await deps.identity.findUser(id);
    if (user === undefined) return { ok: false, rejection: reject("USER_NOT_FOUND") };
    creatorId = user.userId;
    creator = { creatorName: user.userName, creatorImage: user.avatarUrl };
  }
  const details: CatalogDetailsInput = {
    categoryId: String(categoryId),
    ...(body.description === undefined ? {} : { description: body.description }),
    ...(body.rules === undefined ? {} : { rules: body.rules }),
    ...(body.tags === undefined ? {} : { tags: body.tags }),
    ...(body.topic === undefined ? {} : { topic: body.topic }),
    ...(body.dataResource === undefined ? {} : { dataResource: body.dataResource }),
    ...(body.marketLogo === undefined ? {} : { marketLogo: body.marketLogo }),
    ...(body.marketBanner === undefined ? {} : { marketBanner: body.marketBanner }),
    ...(body.buyFee === undefined ? {} : { buyFeeBps: body.buyFee }),
    ...(body.sellFee === undefined ? {} : { sellFeeBps: body.sellFee }),
    ...creator,
    outcomes: body.outcomes.map((outcome) => ({
      ...(outcome.title === undefined ? {} : { title: outcome.title }),
      ...(outcome.description === undefined ? {} : { description: outcome.description }),
      ...(outcome.outcomeLogo === undefined ? {} : { outcomeLogo: outcome.outcomeLogo }),
    })),
  };
  return {
    ok: true,
    value: createMarketCommand({
      title: body.title.trim(),
      modelType,
      outcomes: body.outcomes.map((outcome) => ({
        name: outcome.name.trim(),
        options: outcome.options.map((option) => option.title.trim()),
      })),
      tickSize: decimals.tickSize ?? null,
      minOrderSize: decimals.minOrderSize ?? null,
      makerFeeBps: body.makerFee ?? null,
      takerFeeBps: body.takerFee ?? null,
      marketOrderPriceProtection: decimals.marketOrderPriceProtection ?? null,
      limitOrderPriceProtection: decimals.limitOrderPriceProtection ?? null,
      startTimeMs,
      endTimeMs,
      creatorId,
      details: marketDetailsOf(details),
      pool: pool.value,
      ...(body.exclusive === true ? { exclusive: true } : {}),
    }),
  };
}

/** The pool terms of an AMM or parimutuel market (the core checks and defaults them); null for a book. */
function poolTermsInput(
  modelType: "orderbook" | "AMM" | "parimutuel",
  body: CreateMarketRequest,
): Parsed<PoolTermsInput | null> {
  if (modelType === "orderbook") return { ok: true, value: null };
  const decimals: Record<string, bigint | null> = {};
  for (const field of [
    "liquidity",
    "buyMinAmount",
    "buyMaxAmount",
    "sellMinShares",
    "sellMaxShares",
  ] as const) {
    const parsed = atomsField(field, body[field]);
    if (!parsed.ok) return parsed;
    decimals[field] = parsed.value;
  }
  let weights: bigint[] | null = null;
  if (body.weights !== undefined) {
    weights = [];
    for (const weight of body.weights) {
      const parsed = atomsField("weights", weight);
      if (!parsed.ok) return parsed;
      weights.push(parsed.value!);
    }
  }
  return {
    ok: true,
    value: {
      liquidity: decimals.liquidity ?? null,
      weights,
      buyFeeBps: body.buyFee ?? null,
      sellFeeBps: body.sellFee ?? null,
      settlementFeeBps: body.settlementFee ?? null,
      buyAmountMin: decimals.buyMinAmount ?? null,
      buyAmountMax: decimals.buyMaxAmount ?? null,
      sellSharesMin: decimals.sellMinShares ?? null,
      sellSharesMax: decimals.sellMaxShares ?? null,
    },
  };
}

export default defineRoutes((app, deps) => {
  const detailOrNotFound = async (marketId: number) => loadAdminMarketDetail(deps, marketId);

  app.post(
    "/admin/markets",
    {
      schema: {
        summary: "Create a draft market (orderbook, AMM or parimutuel)",
        description:
          "The market has no book until it is opened (its book answers code 4054). Fees are basis points. `exclusive: true` makes an exclusive event (orderbook, at least two outcomes). Answers the market detail, with `exclusive`.",
        tags: ["Markets"],
        body: CreateMarketRequest,
        response: partnerResponses(AdminMarketDetail),
      },
    },
    async (request, reply) => {
      const input = await createMarketInput(deps, request.body);
      if (!input.ok) return sendRejection(reply, input.rejection);
      const result = await deps.engine.submit(input.value);
      if (!result.ok) return sendRejection(reply, result.rejection);
      const created = result.events[0];
      if (created?.type !== "MarketCreated") throw new Error("CreateMarket must emit MarketCreated first");
      const detail = await detailOrNotFound(created.marketId);
      if (detail === undefined) throw new Error(`market ${created.marketId} is missing after its commit`);
      return ok(detail);
    },
  );

  for (const action of ["open", "close"] as const) {
    app.post(
      `/admin/markets/:id/${action}`,
      {
        schema: {
          summary:
            action === "open"
              ? "Publish a draft market and initialize its books"
              : "Stop trading in a market",
          description:
            action === "open"
              ? "If startTime is still ahead, orders are refused until then."
              : "Every resting order is cancelled and its funds or shares come back.",
          tags: ["Markets"],
          params: MarketIdParams,
          response: partnerResponses(AdminMarketDetail),
        },
      },
      async (request, reply) => {
        const marketId = parseId(request.params.id);
        if (marketId === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
        const result = await deps.engine.submit({
          type: action === "open" ? "OpenMarket" : "CloseMarket",
          marketId,
        });
        if (!result.ok) return sendRejection(reply, result.rejection);
        const detail = await detailOrNotFound(marketId);
        if (detail === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
        return ok(detail);
      },
    );
  }
});
