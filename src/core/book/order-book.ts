// One outcome's order book in Yes-price terms. Two implementations satisfy this interface: a
// small reference book that is obviously correct, and the fast book the exchange runs on. The
// same tests run against both, and a property test compares them command by command.
//
// The book only orders and aggregates; it never decides. Matching (decide) walks it read-only
// with first/next; evolve then applies the outcome with add/reduce/remove.

import type { BookSide, Order } from "./orders.js";

export type BookKind = "fast" | "reference";

export interface BookLevel {
  /** Yes price, price units. */
  readonly priceUnits: number;
  /** Total remaining lots at that price. */
  readonly lots: number;
}

export interface OrderBook {
  readonly kind: BookKind;
  readonly tickUnits: number;
  /**
   * Puts a resting order at the back of its price level; its timePriority must be the highest of
   * the level (a new or re-queued order; the codec adds a snapshot's orders in priority order).
   */
  add(order: Order): void;
  /** Takes `lots` off a resting order that stays on the book (lots < remaining). */
  reduce(order: Order, lots: number): void;
  /** Takes a resting order off the book, whatever it has left. */
  remove(order: Order): void;
  /** Best Yes price on a side in price units, or -1 when the side is empty. */
  bestPrice(side: BookSide): number;
  /** The order with the highest priority on a side (best price, then earliest). */
  first(side: BookSide): Order | null;
  /** The order right after `order` in priority on its side. */
  next(order: Order): Order | null;
  /** Aggregated levels from the best price outwards, at most `depthMax` of them. */
  levels(side: BookSide, depthMax: number): BookLevel[];
  readonly orderCount: number;
  /** Throws when the book's own structure is broken (programmer error). */
  validate(): void;
}
