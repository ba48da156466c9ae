// decide: what a command does, as events, or why it is refused. Never mutates the state; the
// same state, command and context always give the same decision.

import { decideAmendOrder } from "./book/amend-order.js";
import { releaseEvent } from "./book/place-order.js";
import type {
  CancelOrderCommand,
  CloseMarketCommand,
  CreateMarketCommand,
  DepositCommand,
  ExchangeCommand,
  OpenMarketCommand,
} from "./commands.js";
import { decideHeartbeat, decideTripDeadMansSwitch } from "./dead-mans-switch.js";
import type { CommandContext, Decision } from "./decider.js";
import { reject } from "./errors.js";
import type { ExchangeEvent, MarketCreatedEvent } from "./events.js";
import { decideConvertPositions } from "./exclusive/convert.js";
import { exclusiveFlagProblem } from "./exclusive/exclusive-market.js";
import { isId } from "./ids.js";
import { decideClaimMarket, decideClaimPosition } from "./lifecycle/claims.js";
import {
  decideChallengeResolution,
  decideFinalizeMarket,
  decideResolveMarket,
  decideSettleMarket,
  decideVoidMarket,
} from "./lifecycle/lifecycle.js";
import {
  expireOrdersPerCommandMax,
  feeBpsMax,
  orderSharesMax,
  outcomesPerMarketMax,
  titleLengthMax,
  txHashLengthMax,
} from "./limits.js";
import {
  allowedTickUnits,
  assetIdFor,
  defaultLimitProtectionUnits,
  defaultMarketProtectionUnits,
  defaultMinOrderLots,
  defaultTickUnits,
  modelTypes,
} from "./market.js";
import { decideCancelAllOrders } from "./mass-cancel.js";
import { decidePlaceOrder } from "./place-order.js";
import { poolFundingEvents } from "./pools/evolve.js";
import { resolvePoolTerms } from "./pools/models.js";
import type { ExchangeState } from "./state.js";
import { atomsPerLot, atomsPerPriceUnit, lotsToShares, priceUnitsToAtoms } from "./units.js";
import {
  decideApproveWithdrawal,
  decideCancelWithdrawal,
  decideCompleteWithdrawal,
  decideRejectWithdrawal,
  decideRequestWithdrawal,
} from "./wallet/withdrawals.js";

export function decide(
  state: ExchangeState,
  command: ExchangeCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  switch (command.type) {
    case "PlaceOrder":
      return decidePlaceOrder(state, command, context);
    case "CancelOrder":
      return decideCancelOrder(state, command, context);
    case "CancelAllOrders":
      return decideCancelAllOrders(state, command, context);
    case "AmendOrder":
      return decideAmendOrder(state, command, context);
    case "Heartbeat":
      return decideHeartbeat(state, command, context);
    case "TripDeadMansSwitch":
      return decideTripDeadMansSwitch(state, command, context);
    case "ExpireOrders":
      return decideExpireOrders(state, context);
    case "Deposit":
      return decideDeposit(state, command, context);
    case "CreateMarket":
      return decideCreateMarket(state, command, context);
    case "OpenMarket":
      return decideOpenMarket(state, command, context);
    case "CloseMarket":
      return decideCloseMarket(state, command, context);
    case "RequestWithdrawal":
      return decideRequestWithdrawal(state, command, context);
    case "CancelWithdrawal":
      return decideCancelWithdrawal(state, command, context);
    case "ApproveWithdrawal":
      return decideApproveWithdrawal(state, command, context);
    case "RejectWithdrawal":
      return decideRejectWithdrawal(state, command, context);
    case "CompleteWithdrawal":
      return decideCompleteWithdrawal(state, command, context);
    case "ResolveMarket":
      return decideResolveMarket(state, command, context);
    case "ChallengeResolution":
      return decideChallengeResolution(state, command, context);
    case "FinalizeMarket":
      return decideFinalizeMarket(state, command, context);
    case "SettleMarket":
      return decideSettleMarket(state, command, context);
    case "VoidMarket":
      return decideVoidMarket(state, command, context);
    case "ClaimPosition":
      return decideClaimPosition(state, command, context);
    case "ClaimMarket":
      return decideClaimMarket(state, command, context);
    case "ConvertPositions":
      return decideConvertPositions(state, command, context);
    default: {
      const unreachable: never = command;
      return invalid(`unknown command ${JSON.stringify((unreachable as { type?: unknown }).type)}`);
    }
  }
}

function invalid(message: string): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

function refuse(code: Parameters<typeof reject>[0]): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject(code) };
}

function isText(value: unknown, lengthMax: number): value is string {
  return typeof value === "string" && value.trim().length > 0 && value.length <= lengthMax;
}

function isBps(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= feeBpsMax;
}

function decideCreateMarket(
  state: ExchangeState,
  command: CreateMarketCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  if (!isText(command.title, titleLengthMax))
    return invalid(`title must be 1 to ${titleLengthMax} characters`);
  if (!modelTypes.includes(command.modelType))
    return invalid("modelType must be orderbook, AMM or parimutuel");
  // AMM and parimutuel markets carry pool terms (pools/models.ts); order-book markets none.
  const pool = resolvePoolTerms(command.modelType, command.pool);
  if (!pool.ok) return invalid(pool.message);
  if (!Array.isArray(command.outcomes) || command.outcomes.length === 0)
    return invalid("outcomes must not be empty");
  if (command.outcomes.length > outcomesPerMarketMax)
    return invalid(`at most ${outcomesPerMarketMax} outcomes`);
  const exclusiveProblem = exclusiveFlagProblem(
    command.exclusive,
    command.modelType,
    command.outcomes.length,
  );
  if (exclusiveProblem !== undefined) return invalid(exclusiveProblem);
  const terms = tradingTerms(command);
  if (typeof terms === "string") return invalid(terms);
  const scheduleProblem = scheduleAndDetailsProblem(command);
  if (scheduleProblem !== undefined) return invalid(scheduleProblem);
  const outcomes = createdOutcomes(state, command);
  if (typeof outcomes === "string") return invalid(outcomes);

  const created: MarketCreatedEvent = {
    type: "MarketCreated",
    marketId: state.counters.nextMarketId,
    title: command.title,
    modelType: command.modelType,
    ...terms,
    startTimeMs: command.startTimeMs,
    endTimeMs: command.endTimeMs,
    creatorId: command.creatorId,
    // Older journal entries have no details at all; both mean "none".
    details: command.details ?? null,
    ...(pool.terms === null ? {} : { poolTerms: pool.terms }),
    ...(command.exclusive === true ? { exclusive: true as const } : {}),
    createdAtMs: context.nowMs,
    outcomes,
  };
  // An AMM market's pools are funded by the platform as it is created.
  return { ok: true, events: [created, ...poolFundingEvents(created, pool.terms)] };
}

/** A new market's trading terms, defaults filled in, as MarketCreated carries them. */
type TradingTerms = Pick<
  MarketCreatedEvent,
  | "tickSize"
  | "minOrderSize"
  | "makerFeeBps"
  | "takerFeeBps"
  | "marketOrderPriceProtection"
  | "limitOrderPriceProtection"
>;

/** The market's tick, minimum order, fees and price protections, or what is wrong with them. */
function tradingTerms(command: CreateMarketCommand): TradingTerms | string {
  const tickSize = command.tickSize ?? priceUnitsToAtoms(defaultTickUnits);
  if (
    typeof tickSize !== "bigint" ||
    !allowedTickUnits.some((units) => priceUnitsToAtoms(units) === tickSize)
  ) {
    return "tickSize must be 0.1, 0.01, 0.001 or 0.0001";
  }
  const minOrderSize = command.minOrderSize ?? lotsToShares(defaultMinOrderLots);
  if (
    typeof minOrderSize !== "bigint" ||
    minOrderSize <= 0n ||
    minOrderSize % atomsPerLot !== 0n ||
    minOrderSize > orderSharesMax
  ) {
    return "minOrderSize must be a positive multiple of 0.0001 shares";
  }
  const makerFeeBps = command.makerFeeBps ?? 0;
  const takerFeeBps = command.takerFeeBps ?? 0;
  if (!isBps(makerFeeBps) || !isBps(takerFeeBps)) return `fees must be 0 to ${feeBpsMax} basis points`;
  const marketOrderPriceProtection =
    command.marketOrderPriceProtection ?? priceUnitsToAtoms(defaultMarketProtectionUnits);
  const limitOrderPriceProtection =
    command.limitOrderPriceProtection ?? priceUnitsToAtoms(defaultLimitProtectionUnits);
  for (const protection of [marketOrderPriceProtection, limitOrderPriceProtection]) {
    if (
      typeof protection !== "bigint" ||
      protection <= 0n ||
      protection > 100_000_000n ||
      protection % atomsPerPriceUnit !== 0n
    ) {
      return "price protection must be a price above 0 and at most 1";
    }
  }
  return {
    tickSize,
    minOrderSize,
    makerFeeBps,
    takerFeeBps,
    marketOrderPriceProtection,
    limitOrderPriceProtection,
  };
}

/** What is wrong with the market's trading window, creator or details, if anything. */
function scheduleAndDetailsProblem(command: CreateMarketCommand): string | undefined {
  for (const time of [command.startTimeMs, command.endTimeMs]) {
    if (time !== null && !Number.isSafeInteger(time)) return "times must be integer milliseconds";
  }
  if (
    command.startTimeMs !== null &&
    command.endTimeMs !== null &&
    command.endTimeMs <= command.startTimeMs
  ) {
    return "endTime must be after startTime";
  }
  if (command.creatorId !== null && !isId(command.creatorId)) return "creatorId must be a positive integer";
  const details = command.details ?? null;
  if (details !== null && (typeof details !== "object" || Array.isArray(details)))
    return "details must be an object";
  return undefined;
}

/** The new market's outcomes with their options and ids, or what is wrong with one of them. */
function createdOutcomes(
  state: ExchangeState,
  command: CreateMarketCommand,
): MarketCreatedEvent["outcomes"][number][] | string {
  let nextOutcomeId = state.counters.nextOutcomeId;
  let nextOptionId = state.counters.nextOptionId;
  const outcomes: MarketCreatedEvent["outcomes"][number][] = [];
  for (const outcome of command.outcomes) {
    if (!isText(outcome?.name, titleLengthMax)) return "every outcome needs a name";
    const titles = outcome.options ?? ["Yes", "No"];
    // An orderbook outcome is binary: index 0 is Yes, 1 is No (DESIGN §3).
    if (
      !Array.isArray(titles) ||
      titles.length !== 2 ||
      !titles.every((title) => isText(title, titleLengthMax))
    ) {
      return "every orderbook outcome has exactly two options, Yes then No";
    }
    const outcomeId = nextOutcomeId++;
    const yesId = nextOptionId++;
    const noId = nextOptionId++;
    outcomes.push({
      outcomeId,
      name: outcome.name,
      options: [
        { optionId: yesId, optionIndex: 0, title: titles[0]!, assetId: assetIdFor(yesId) },
        { optionId: noId, optionIndex: 1, title: titles[1]!, assetId: assetIdFor(noId) },
      ],
    });
  }
  return outcomes;
}

function decideOpenMarket(
  state: ExchangeState,
  command: OpenMarketCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  if (market.status !== "draft") return refuse("MARKET_STATUS_CONFLICT");
  return { ok: true, events: [{ type: "MarketOpened", marketId: market.marketId, atMs: context.nowMs }] };
}

function decideCloseMarket(
  state: ExchangeState,
  command: CloseMarketCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  if (market.status !== "open") return refuse("MARKET_STATUS_CONFLICT");
  // Every resting order is cancelled and its funds or shares come back (bounded by ordersPerBookMax).
  const events: ExchangeEvent[] = [];
  for (const order of state.orders.values()) {
    if (order.marketId === market.marketId) {
      events.push(releaseEvent("OrderCancelled", order, context.nowMs, "MARKET_CLOSED"));
    }
  }
  events.push({ type: "MarketClosed", marketId: market.marketId, atMs: context.nowMs });
  return { ok: true, events };
}

function decideDeposit(
  state: ExchangeState,
  command: DepositCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  if (!isId(command.userId)) return invalid("userId must be a positive integer");
  if (typeof command.amount !== "bigint" || command.amount <= 0n) return invalid("amount must be positive");
  if (!isText(command.txHash, txHashLengthMax))
    return invalid(`txHash must be 1 to ${txHashLengthMax} characters`);
  // Idempotent on txHash: a second credit of the same transaction is refused and changes nothing.
  if (state.depositTxHashes.has(command.txHash)) return refuse("DEPOSIT_DUPLICATE");
  return {
    ok: true,
    events: [
      {
        type: "DepositCredited",
        userId: command.userId,
        amount: command.amount,
        txHash: command.txHash,
        atMs: context.nowMs,
      },
    ],
  };
}

function decideCancelOrder(
  state: ExchangeState,
  command: CancelOrderCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  if (!isId(command.orderId)) return refuse("ORDER_NOT_FOUND");
  const order = state.orders.get(command.orderId);
  if (order === undefined) {
    // Terminal orders are not kept in the core; an id that was issued is simply no longer cancellable.
    return refuse(command.orderId < state.counters.nextOrderId ? "ORDER_NOT_CANCELLABLE" : "ORDER_NOT_FOUND");
  }
  // Someone else's order is "not found": its existence is none of the caller's business.
  if (order.userId !== command.userId) return refuse("ORDER_NOT_FOUND");
  return { ok: true, events: [releaseEvent("OrderCancelled", order, context.nowMs, "USER")] };
}

function decideExpireOrders(state: ExchangeState, context: CommandContext): Decision<ExchangeEvent> {
  const events: ExchangeEvent[] = [];
  for (const order of state.ordersWithExpiry.values()) {
    if (events.length === expireOrdersPerCommandMax) break;
    if (order.expiresAtMs !== null && order.expiresAtMs <= context.nowMs) {
      events.push(releaseEvent("OrderExpired", order, context.nowMs));
    }
  }
  return { ok: true, events };
}
