// Orders as the core keeps them while they rest on a book. Terminal orders leave the core state
// (their history lives in the read models built from events), so memory stays bounded by the
// open-order limits.

import type { OptionIndex } from "../option-index.js";

export type OrderSide = "BUY" | "SELL";
export type OrderType = "LIMIT" | "MARKET";
export type TimeInForce = "GTC" | "GTD" | "FOK" | "FAK";
export type OrderStatus = "OPEN" | "PARTIALLY_FILLED" | "FILLED" | "CANCELLED" | "EXPIRED";

/** Side of the Yes-price book: 0 = bids, 1 = asks. */
export type BookSide = 0 | 1;
export const bidSide: BookSide = 0;
export const askSide: BookSide = 1;

/**
 * Where an order sits on its outcome's Yes-price book (DESIGN §3): BUY Yes bids p, SELL No bids
 * 1−q; SELL Yes offers p, BUY No offers 1−q.
 */
export function bookSideOf(side: OrderSide, optionIndex: OptionIndex): BookSide {
  return (side === "BUY") === (optionIndex === 0) ? bidSide : askSide;
}

/** An option price (in its own terms) as a Yes price, both in price units. */
export function yesPriceOf(optionPriceUnits: number, optionIndex: OptionIndex, unitsPerOne: number): number {
  return optionIndex === 0 ? optionPriceUnits : unitsPerOne - optionPriceUnits;
}

/**
 * A resting LIMIT order. Amounts inside one order are exact JS numbers of atoms (limits.ts bounds
 * them); `previous`/`next` are the fast book's intrusive FIFO links and `userPrevious`/`userNext`
 * its owner's list of resting orders, none of them part of the state that is encoded or hashed.
 */
export interface Order {
  readonly orderId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly optionIndex: OptionIndex;
  readonly side: OrderSide;
  readonly timeInForce: "GTC" | "GTD";
  readonly bookSide: BookSide;
  /** Limit price in the order's own option terms, price units (an amend may change it). */
  priceUnits: number;
  /** The same price on the Yes book. */
  yesPriceUnits: number;
  /** Its total size: filled + remaining (an amend may change it). */
  originalLots: number;
  /**
   * Its place in time priority within a price level: lower is earlier. A new order's is issued when
   * it is placed, an amended order sent to the back gets a new one (evolve.ts, timePriorityOf).
   */
  timePriority: number;
  remainingLots: number;
  filledLots: number;
  /** Cash of the fills so far (Σ lots × price), atoms. */
  filledNotional: number;
  feesPaid: number;
  /** USDT still frozen for a BUY's remaining lots, atoms; 0 for a SELL (its shares are frozen). */
  frozenAmount: number;
  readonly expiresAtMs: number | null;
  readonly clientOrderId: string | null;
  readonly createdAtMs: number;
  /** A post-only order never takes: an amend that would make it trade at once is refused too. */
  readonly postOnly: boolean;
  previous: Order | null;
  next: Order | null;
  /** The owner's resting orders in id order (user-orders.ts): links like previous/next, never encoded. */
  userPrevious: Order | null;
  userNext: Order | null;
}

export function statusOfRestingOrder(order: Order): OrderStatus {
  return order.filledLots === 0 ? "OPEN" : "PARTIALLY_FILLED";
}
