// The reference book: two arrays kept in priority order by sorting after every change. Slow and
// obviously correct; it exists to check the fast book and the benchmark against.

import type { BookLevel, OrderBook } from "./order-book.js";
import { askSide, type BookSide, bidSide, type Order } from "./orders.js";

function priority(side: BookSide): (a: Order, b: Order) => number {
  // Bids: higher price first; asks: lower price first; then earlier (lower time priority) first.
  return side === bidSide
    ? (a, b) => b.yesPriceUnits - a.yesPriceUnits || a.timePriority - b.timePriority
    : (a, b) => a.yesPriceUnits - b.yesPriceUnits || a.timePriority - b.timePriority;
}

export class ReferenceBook implements OrderBook {
  readonly kind = "reference" as const;
  private readonly sides: [Order[], Order[]] = [[], []];

  constructor(readonly tickUnits: number) {}

  get orderCount(): number {
    return this.sides[0].length + this.sides[1].length;
  }

  add(order: Order): void {
    const orders = this.sides[order.bookSide];
    orders.push(order);
    orders.sort(priority(order.bookSide));
  }

  reduce(order: Order, lots: number): void {
    if (!(lots > 0 && lots < order.remainingLots)) throw new Error("reference book: bad reduce");
    order.remainingLots -= lots;
  }

  remove(order: Order): void {
    const orders = this.sides[order.bookSide];
    const index = orders.indexOf(order);
    if (index < 0) throw new Error(`reference book: order ${order.orderId} is not on the book`);
    orders.splice(index, 1);
  }

  bestPrice(side: BookSide): number {
    return this.sides[side][0]?.yesPriceUnits ?? -1;
  }

  first(side: BookSide): Order | null {
    return this.sides[side][0] ?? null;
  }

  next(order: Order): Order | null {
    const orders = this.sides[order.bookSide];
    const index = orders.indexOf(order);
    if (index < 0) throw new Error(`reference book: order ${order.orderId} is not on the book`);
    return orders[index + 1] ?? null;
  }

  levels(side: BookSide, depthMax: number): BookLevel[] {
    const levels: { priceUnits: number; lots: number }[] = [];
    for (const order of this.sides[side]) {
      const last = levels[levels.length - 1];
      if (last && last.priceUnits === order.yesPriceUnits) last.lots += order.remainingLots;
      else if (levels.length === depthMax) break;
      else levels.push({ priceUnits: order.yesPriceUnits, lots: order.remainingLots });
    }
    return levels;
  }

  validate(): void {
    for (const side of [bidSide, askSide] as const) {
      const orders = this.sides[side];
      const sorted = [...orders].sort(priority(side));
      orders.forEach((order, index) => {
        if (sorted[index] !== order) throw new Error("reference book: out of priority order");
        if (order.bookSide !== side) throw new Error("reference book: order on the wrong side");
        if (!(order.remainingLots > 0)) throw new Error("reference book: empty order at rest");
        if (order.yesPriceUnits % this.tickUnits !== 0) throw new Error("reference book: price off tick");
      });
    }
  }
}
