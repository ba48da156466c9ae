// Polymarket's market object (GET /markets, /markets/{condition_id}) for one predex outcome: a
// binary condition with two tokens, Yes and No. Live figures come from one read of the committed
// state (listedOutcomes), the catalogue's text and images from the read models (marketObject).

import { defaultMarketLogoUrl } from "../../../catalog/market-detail.js";
import { isoSeconds } from "../../../contract/wire-format.js";
import { type ExchangeState, isExclusiveMarket, poolMarketView } from "../../../core/exchange.js";
import type { Market as CoreMarket, Outcome } from "../../../core/market.js";
import { formatAtoms } from "../../../core/money.js";
import { lotsToShares, priceUnitsToAtoms } from "../../../core/units.js";
import {
  type ConditionIndex,
  conditionIdOf,
  negRiskMarketIdOf,
  questionIdOf,
} from "../../../realtime/condition-ids.js";
import { optionPriceAtoms, yesPriceAtoms } from "../../../realtime/option-price.js";
import type { CatalogMarket } from "../../../store/exchange-read-models.js";
import { catalogDetailsOf } from "../../../store/market-details.js";
import { baseFeeBpsOf } from "./market-parameters.js";
import type { Market, SimplifiedMarket } from "./schemas.js";

/** What the state says about one listed outcome, copied out of the read. */
export interface ListedOutcome {
  readonly marketId: number;
  readonly outcomeId: number;
  readonly conditionId: string;
  readonly question: string;
  readonly modelType: "orderbook" | "AMM" | "parimutuel";
  readonly status: string;
  readonly tickSize: number;
  readonly minOrderSize: number;
  readonly makerFeeBps: number;
  readonly takerFeeBps: number;
  readonly startTimeMs: number | null;
  readonly endTimeMs: number | null;
  /** An exclusive market's outcome: Polymarket's neg-risk (DESIGN §10). */
  readonly negRisk: boolean;
  readonly tokens: readonly { token_id: string; outcome: string; price: number; winner: boolean }[];
}

const atomsPerUnit = 100_000_000;

/** Every published outcome (its market no longer a draft), in market id then outcome order. */
export function publishedOutcomes(state: Readonly<ExchangeState>): Outcome[] {
  const outcomes: Outcome[] = [];
  for (const market of state.markets.values()) {
    if (market.status === "draft") continue;
    for (const outcomeId of market.outcomeIds) outcomes.push(state.outcomes.get(outcomeId)!);
  }
  return outcomes;
}

/**
 * Polymarket's "sampling" markets are the live ones a maker can quote on for liquidity rewards.
 * predex pays no rewards, so they are the outcomes a maker can quote on now: an order book whose
 * market accepts orders (docs/decisions.md, "Polymarket-compatible public reads").
 */
export function samplingOutcomes(state: Readonly<ExchangeState>): Outcome[] {
  return publishedOutcomes(state).filter((outcome) => {
    const market = state.markets.get(outcome.marketId)!;
    return market.status === "open" && market.modelType === "orderbook";
  });
}

/** The outcome a condition id names, once its market is published; undefined otherwise. */
export function publishedOutcomeOf(
  state: Readonly<ExchangeState>,
  conditions: ConditionIndex,
  conditionId: string,
): Outcome | undefined {
  const outcomeId = conditions.outcomeIdOf(state, conditionId);
  const outcome = outcomeId === undefined ? undefined : state.outcomes.get(outcomeId);
  if (outcome === undefined || state.markets.get(outcome.marketId)?.status === "draft") return undefined;
  return outcome;
}

/** The question of one binary outcome: the same one /ws/market's new_market event gives. */
export function questionOf(market: Readonly<CoreMarket>, outcome: Readonly<Outcome>): string {
  return market.outcomeIds.length === 1 ? market.title : `${market.title}: ${outcome.name}`;
}

/** The market's logo (the catalogue's, or the default one): the `icon` and `image` of its objects. */
export function marketImageOf(catalog: CatalogMarket | undefined): string {
  return catalogDetailsOf(catalog?.details ?? null).marketLogo ?? defaultMarketLogoUrl;
}

/**
 * An outcome's live figures. Token prices follow the market detail's rule: a book's midpoint, else
 * its last trade, else 0.5; a pool's marginal price (AMM) or chance (parimutuel).
 */
export function listedOutcome(state: Readonly<ExchangeState>, outcome: Outcome): ListedOutcome {
  const market = state.markets.get(outcome.marketId)!;
  // An AMM's marginal prices or a parimutuel pool's chances (the market detail's prices too).
  const pool = poolMarketView(state as ExchangeState, market.marketId)?.pricesByOptionId ?? null;
  const yesAtoms = yesPriceAtoms(outcome);
  const winners = state.resolutions.get(market.marketId)?.finalWinners ?? null;
  const settled = market.status === "settled" && winners !== null;
  const tokens = outcome.optionIds.map((optionId, index) => {
    const option = state.options.get(optionId)!;
    const poolPrice = pool?.get(optionId)?.price;
    const priceAtoms =
      poolPrice === undefined ? optionPriceAtoms(yesAtoms, index as 0 | 1) : Number(poolPrice);
    return {
      token_id: option.assetId,
      outcome: option.title,
      price: priceAtoms / atomsPerUnit,
      winner: settled && winners.some((winner) => winner.optionId === optionId),
    };
  });
  const takerFeeBps = baseFeeBpsOf(
    { market, outcome, option: state.options.get(outcome.optionIds[0])! },
    state,
  );
  return {
    marketId: market.marketId,
    outcomeId: outcome.outcomeId,
    conditionId: conditionIdOf(market.marketId, outcome.outcomeId),
    question: questionOf(market, outcome),
    modelType: market.modelType,
    status: market.status,
    tickSize: Number(formatAtoms(priceUnitsToAtoms(market.tickUnits))),
    minOrderSize: Number(formatAtoms(lotsToShares(market.minOrderLots))),
    makerFeeBps: market.modelType === "orderbook" ? market.makerFeeBps : 0,
    takerFeeBps,
    startTimeMs: market.startTimeMs,
    endTimeMs: market.endTimeMs,
    negRisk: isExclusiveMarket(state, market.marketId),
    tokens,
  };
}

/** The market object's `market_slug`, also the `slug` of its trade events. */
export function slugOf(question: string, outcomeId: number): string {
  const words = question
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
  return words === "" ? `outcome-${outcomeId}` : `${words}-${outcomeId}`;
}

/** No liquidity rewards are paid on predex: no rates, no size or spread to qualify. */
const noRewards = () => ({ rates: null, min_size: 0, max_spread: 0 });

/** Polymarket's SimplifiedMarket: the live fields of the market object, without the catalogue's text. */
export function simplifiedMarketObject(live: ListedOutcome): SimplifiedMarket {
  const open = live.status === "open";
  return {
    condition_id: live.conditionId,
    rewards: noRewards(),
    tokens: live.tokens.map((token) => ({ ...token })),
    active: live.status !== "void",
    closed: !open,
    archived: false,
    accepting_orders: open,
  };
}

export function marketObject(live: ListedOutcome, catalog: CatalogMarket | undefined): Market {
  const details = catalogDetailsOf(catalog?.details ?? null);
  const image = marketImageOf(catalog);
  const open = live.status === "open";
  return {
    enable_order_book: live.modelType === "orderbook",
    active: live.status !== "void",
    closed: !open,
    archived: false,
    accepting_orders: open,
    accepting_order_timestamp: catalog?.openedAtMs == null ? null : isoSeconds(catalog.openedAtMs),
    minimum_order_size: live.minOrderSize,
    minimum_tick_size: live.tickSize,
    condition_id: live.conditionId,
    question_id: questionIdOf(live.marketId, live.outcomeId),
    question: live.question,
    description: catalog?.description ?? details.description,
    market_slug: slugOf(live.question, live.outcomeId),
    end_date_iso: live.endTimeMs === null ? null : isoSeconds(live.endTimeMs),
    game_start_time: null,
    seconds_delay: 0,
    fpmm: "",
    maker_base_fee: live.makerFeeBps,
    taker_base_fee: live.takerFeeBps,
    notifications_enabled: false,
    // An exclusive market is a neg-risk event: its outcomes share the event's id, and each question's
    // request id is its question id (docs/decisions.md, "Exclusive (neg-risk) events").
    neg_risk: live.negRisk,
    neg_risk_market_id: live.negRisk ? negRiskMarketIdOf(live.marketId) : "",
    neg_risk_request_id: live.negRisk ? questionIdOf(live.marketId, live.outcomeId) : "",
    icon: image,
    image,
    rewards: noRewards(),
    is_50_50_outcome: false,
    tokens: live.tokens.map((token) => ({ ...token })),
    tags: (catalog?.tags ?? "")
      .split(",")
      .map((tag) => tag.trim())
      .filter((tag) => tag !== ""),
  };
}
