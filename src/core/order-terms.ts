// The checks of a PlaceOrder against the market it names, run before the clientOrderId lookup
// (DESIGN §6, "validation comes before idempotency"): the market, outcome and option exist and
// belong together, the model takes this kind of order, the price is on the market's tick and the
// size within its bounds. A request that fails one of them is refused whether or not its
// clientOrderId was used before, exactly as it is refused with a fresh one.
//
// They depend on the request and on terms a market never changes after creation, so a request that
// passed them once passes them again. What a placement meets at the moment it runs (the market
// open and inside its trading window, a GTD expiry still ahead, the balance, the book) is checked
// after the lookup: a retry whose first order was placed must still be answered with that order,
// even after the market closed or the money moved, because that is what happened.

import type { PlaceOrderCommand } from "./commands.js";
import { type Rejection, type RejectionCode, reject } from "./errors.js";
import { orderAmountAtomsMax, orderSharesMax } from "./limits.js";
import type { Market, OptionRecord, Outcome } from "./market.js";
import type { PoolTerms } from "./pools/models.js";
import type { ExchangeState } from "./state.js";
import { orderSharesToLots, priceToUnits } from "./units.js";

/** The smallest MARKET BUY budget on an order book: 0.01 USDT. */
export const marketBuyAmountAtomsMin = 1_000_000n;

/**
 * An order-book order's terms in the book's integer units, worked out by the checks. What kind of
 * order it is decides which numbers it has: a LIMIT order a price and a number of lots, a MARKET
 * BUY a budget, a MARKET SELL a number of lots.
 */
export type BookOrderTerms =
  | {
      readonly kind: "LIMIT";
      /** The limit price in the order's own option terms, price units. */
      readonly limitUnits: number;
      readonly lots: number;
    }
  | {
      readonly kind: "MARKET_BUY";
      /** The USDT to spend, taker fee included, atoms (exact: at most orderAmountAtomsMax). */
      readonly budgetAtoms: number;
    }
  | { readonly kind: "MARKET_SELL"; readonly lots: number };

interface OrderPlacement {
  readonly ok: true;
  readonly market: Market;
  readonly outcome: Outcome;
  readonly option: OptionRecord;
}

export type OrderTermsCheck =
  /** An order-book market's order. */
  | (OrderPlacement & { readonly bookTerms: BookOrderTerms; readonly poolTerms: undefined })
  /** An AMM or parimutuel market's order. */
  | (OrderPlacement & { readonly bookTerms: undefined; readonly poolTerms: PoolTerms })
  | { readonly ok: false; readonly rejection: Rejection };

function refused(code: RejectionCode, message?: string): OrderTermsCheck {
  return { ok: false, rejection: reject(code, message) };
}

/**
 * The first problem of the order against its market, or the market, outcome and option it names.
 * The command's own shape (order-shape.ts) has been checked already.
 */
export function checkOrderTerms(state: ExchangeState, command: PlaceOrderCommand): OrderTermsCheck {
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refused("MARKET_NOT_FOUND");
  const outcome = state.outcomes.get(command.outcomeId);
  if (outcome === undefined || outcome.marketId !== market.marketId) return refused("OUTCOME_NOT_FOUND");
  const option = state.options.get(command.optionId);
  if (option === undefined || option.outcomeId !== outcome.outcomeId) return refused("OPTION_NOT_FOUND");
  if (market.modelType === "orderbook") {
    const bookTerms = bookOrderTerms(command, market);
    if ("code" in bookTerms) return { ok: false, rejection: bookTerms };
    return { ok: true, market, outcome, option, bookTerms, poolTerms: undefined };
  }
  const poolTerms = state.pools.terms.get(market.marketId);
  if (poolTerms === undefined) throw new Error(`order terms: market ${market.marketId} has no pool terms`);
  const rejection = poolOrderRejection(command, poolTerms);
  if (rejection !== undefined) return { ok: false, rejection };
  return { ok: true, market, outcome, option, bookTerms: undefined, poolTerms };
}

/** An order-book order on the market's tick and within its size bounds, in book units. */
function bookOrderTerms(command: PlaceOrderCommand, market: Market): BookOrderTerms | Rejection {
  if (command.orderType === "MARKET" && command.side === "BUY") {
    const amount = command.amount as bigint;
    if (amount < marketBuyAmountAtomsMin) return reject("SIZE_TOO_SMALL");
    if (amount > orderAmountAtomsMax) return reject("SIZE_TOO_LARGE");
    return { kind: "MARKET_BUY", budgetAtoms: Number(amount) };
  }
  let limitUnits = 0;
  if (command.orderType === "LIMIT") {
    // The shape check has seen a price strictly between 0 and 1: exact as a JS number.
    const units = priceToUnits(command.limitPrice as bigint);
    if (!Number.isInteger(units) || units % market.tickUnits !== 0) return reject("PRICE_NOT_ON_TICK");
    limitUnits = units;
  }
  const shares = command.shares as bigint;
  if (shares > orderSharesMax) return reject("SIZE_TOO_LARGE");
  const lots = orderSharesToLots(shares);
  if (!Number.isInteger(lots)) return reject("SHARES_NOT_ON_STEP");
  if (lots < market.minOrderLots) return reject("SIZE_TOO_SMALL");
  return command.orderType === "LIMIT" ? { kind: "LIMIT", limitUnits, lots } : { kind: "MARKET_SELL", lots };
}

/** What a pool takes: MARKET orders only, no SELL on a parimutuel pool, sizes within the market's range. */
function poolOrderRejection(command: PlaceOrderCommand, terms: PoolTerms): Rejection | undefined {
  const modelName = terms.modelType === "AMM" ? "AMM" : "parimutuel";
  if (command.orderType === "LIMIT") {
    return reject("MODEL_NOT_SUPPORTED", `LIMIT orders are not supported on ${modelName} markets`);
  }
  if (command.side === "SELL") {
    if (terms.modelType !== "AMM") {
      return reject("MODEL_NOT_SUPPORTED", "SELL orders are not supported on parimutuel markets");
    }
    const shares = command.shares as bigint;
    if (shares < terms.sellSharesMin || shares > terms.sellSharesMax) {
      return reject(
        "AMOUNT_OUT_OF_RANGE",
        `shares must be between ${terms.sellSharesMin} and ${terms.sellSharesMax} atoms`,
      );
    }
    return undefined;
  }
  const amount = command.amount as bigint;
  if (amount < terms.buyAmountMin || amount > terms.buyAmountMax) {
    return reject(
      "AMOUNT_OUT_OF_RANGE",
      `amount must be between ${terms.buyAmountMin} and ${terms.buyAmountMax} atoms`,
    );
  }
  return undefined;
}
