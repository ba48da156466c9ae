// The fast book. Price levels are dense arrays indexed by tick (at most 10,000 of them), each an
// intrusive FIFO queue threaded through the orders' own `previous`/`next` fields, with a bitset of
// non-empty levels per side so finding the next level is a couple of clz32 calls. No allocation
// per add, reduce or remove; prices and lots are plain integers.

import { priceUnitsPerUnit } from "../units.js";
import type { BookLevel, OrderBook } from "./order-book.js";
import { askSide, type BookSide, bidSide, type Order } from "./orders.js";

const noLevel = -1;

class BookSideLevels {
  readonly heads: (Order | null)[];
  readonly tails: (Order | null)[];
  readonly lots: Float64Array;
  readonly counts: Int32Array;
  readonly nonEmpty: Uint32Array;
  /** Index of the best non-empty level, or noLevel. */
  best = noLevel;

  constructor(
    readonly side: BookSide,
    levelCount: number,
  ) {
    this.heads = new Array<Order | null>(levelCount).fill(null);
    this.tails = new Array<Order | null>(levelCount).fill(null);
    this.lots = new Float64Array(levelCount);
    this.counts = new Int32Array(levelCount);
    this.nonEmpty = new Uint32Array((levelCount + 31) >>> 5);
  }

  /** The nearest non-empty level at `from` or worse (lower for bids, higher for asks). */
  scanFrom(from: number): number {
    return this.side === bidSide ? this.scanDown(from) : this.scanUp(from);
  }

  private scanDown(from: number): number {
    if (from < 0) return noLevel;
    let word = from >>> 5;
    let bits = this.nonEmpty[word]! & (0xffffffff >>> (31 - (from & 31)));
    for (;;) {
      if (bits !== 0) return (word << 5) + 31 - Math.clz32(bits);
      if (word === 0) return noLevel;
      word--;
      bits = this.nonEmpty[word]!;
    }
  }

  private scanUp(from: number): number {
    const words = this.nonEmpty.length;
    let word = from >>> 5;
    if (word >= words) return noLevel;
    let bits = this.nonEmpty[word]! & (0xffffffff << (from & 31));
    for (;;) {
      if (bits !== 0) return (word << 5) + 31 - Math.clz32(bits & -bits);
      word++;
      if (word >= words) return noLevel;
      bits = this.nonEmpty[word]!;
    }
  }

  /** Next level in priority after `level`. */
  worseThan(level: number): number {
    return this.side === bidSide ? this.scanDown(level - 1) : this.scanUp(level + 1);
  }

  isBetter(a: number, b: number): boolean {
    return this.side === bidSide ? a > b : a < b;
  }

  markNonEmpty(level: number): void {
    this.nonEmpty[level >>> 5]! |= 1 << (level & 31);
  }

  markEmpty(level: number): void {
    this.nonEmpty[level >>> 5]! &= ~(1 << (level & 31));
  }
}

export class FastBook implements OrderBook {
  readonly kind = "fast" as const;
  private readonly sides: [BookSideLevels, BookSideLevels];
  private count = 0;

  constructor(readonly tickUnits: number) {
    const levelCount = priceUnitsPerUnit / tickUnits + 1;
    this.sides = [new BookSideLevels(bidSide, levelCount), new BookSideLevels(askSide, levelCount)];
  }

  get orderCount(): number {
    return this.count;
  }

  add(order: Order): void {
    const levels = this.sides[order.bookSide];
    const level = order.yesPriceUnits / this.tickUnits;
    const tail = levels.tails[level]!;
    order.previous = tail;
    order.next = null;
    if (tail === null) {
      levels.heads[level] = order;
      levels.markNonEmpty(level);
      if (levels.best === noLevel || levels.isBetter(level, levels.best)) levels.best = level;
    } else {
      tail.next = order;
    }
    levels.tails[level] = order;
    levels.lots[level]! += order.remainingLots;
    levels.counts[level]!++;
    this.count++;
  }

  reduce(order: Order, lots: number): void {
    if (!(lots > 0 && lots < order.remainingLots)) throw new Error("fast book: bad reduce");
    order.remainingLots -= lots;
    this.sides[order.bookSide].lots[order.yesPriceUnits / this.tickUnits]! -= lots;
  }

  remove(order: Order): void {
    const levels = this.sides[order.bookSide];
    const level = order.yesPriceUnits / this.tickUnits;
    const { previous, next } = order;
    if (previous === null) levels.heads[level] = next;
    else previous.next = next;
    if (next === null) levels.tails[level] = previous;
    else next.previous = previous;
    order.previous = null;
    order.next = null;
    levels.lots[level]! -= order.remainingLots;
    levels.counts[level]!--;
    this.count--;
    if (levels.counts[level] === 0) {
      levels.lots[level] = 0;
      levels.markEmpty(level);
      if (levels.best === level) levels.best = levels.worseThan(level);
    }
  }

  bestPrice(side: BookSide): number {
    const best = this.sides[side].best;
    return best === noLevel ? -1 : best * this.tickUnits;
  }

  first(side: BookSide): Order | null {
    const levels = this.sides[side];
    return levels.best === noLevel ? null : levels.heads[levels.best]!;
  }

  next(order: Order): Order | null {
    if (order.next !== null) return order.next;
    const levels = this.sides[order.bookSide];
    const level = levels.worseThan(order.yesPriceUnits / this.tickUnits);
    return level === noLevel ? null : levels.heads[level]!;
  }

  levels(side: BookSide, depthMax: number): BookLevel[] {
    const levels = this.sides[side];
    const result: BookLevel[] = [];
    for (let level = levels.best; level !== noLevel && result.length < depthMax; ) {
      result.push({ priceUnits: level * this.tickUnits, lots: levels.lots[level]! });
      level = levels.worseThan(level);
    }
    return result;
  }

  validate(): void {
    let total = 0;
    for (const levels of this.sides) {
      let best = noLevel;
      for (let level = 0; level < levels.heads.length; level++) {
        let lots = 0;
        let count = 0;
        let previous: Order | null = null;
        for (let order: Order | null = levels.heads[level]!; order !== null; order = order.next) {
          if (order.previous !== previous) throw new Error("fast book: broken links");
          if (order.bookSide !== levels.side) throw new Error("fast book: order on the wrong side");
          if (order.yesPriceUnits !== level * this.tickUnits)
            throw new Error("fast book: order at wrong level");
          if (!(order.remainingLots > 0)) throw new Error("fast book: empty order at rest");
          if (previous !== null && previous.timePriority >= order.timePriority)
            throw new Error("fast book: FIFO broken");
          lots += order.remainingLots;
          count++;
          previous = order;
        }
        if (levels.tails[level] !== previous) throw new Error("fast book: wrong tail");
        if (levels.lots[level] !== lots || levels.counts[level] !== count) {
          throw new Error("fast book: level totals differ from its orders");
        }
        const marked = (levels.nonEmpty[level >>> 5]! & (1 << (level & 31))) !== 0;
        if (marked !== count > 0) throw new Error("fast book: non-empty bitset is wrong");
        if (count > 0 && (best === noLevel || levels.isBetter(level, best))) best = level;
        total += count;
      }
      if (levels.best !== best) throw new Error("fast book: best level is wrong");
    }
    if (total !== this.count) throw new Error("fast book: order count is wrong");
  }
}
