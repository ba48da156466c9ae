// The last published levels of every live book, so that after a commit we can say which levels
// changed and what they hold now. The book itself is the authority: after each batch we read the
// touched books' aggregated levels from the committed state and diff them against this copy,
// instead of re-deriving level arithmetic from events (which could drift from the matcher).

import type { OrderBook } from "../core/book/order-book.js";
import { askSide, type BookSide, bidSide } from "../core/book/orders.js";
import { priceLevelsPerSideMax } from "../core/limits.js";
import { levelsInTerms } from "./option-view.js";

/** One aggregated level of a Yes-price book after a change; lots 0 means the level is gone. */
export interface LevelChange {
  readonly side: BookSide;
  readonly priceUnits: number;
  readonly lots: number;
}

type Levels = Map<number, number>;

/** Both sides, made once (not an array per refresh). */
const bothSides = [bidSide, askSide] as const;

export class BookTracker {
  readonly #books = new Map<number, [Levels, Levels]>();

  /** Re-reads a book and returns the levels that differ from the last read (none on the first read). */
  refresh(outcomeId: number, book: OrderBook | null): LevelChange[] {
    const previous = this.#books.get(outcomeId);
    if (book === null) {
      this.#books.delete(outcomeId);
      return previous === undefined ? [] : goneLevels(previous);
    }
    const current: [Levels, Levels] = [readSide(book, bidSide), readSide(book, askSide)];
    this.#books.set(outcomeId, current);
    if (previous === undefined) return [...levelsAsChanges(current)];
    const changes: LevelChange[] = [];
    for (const side of bothSides) {
      const before = previous[side];
      const after = current[side];
      for (const [priceUnits, lots] of after) {
        if (before.get(priceUnits) !== lots) changes.push({ side, priceUnits, lots });
      }
      for (const priceUnits of before.keys()) {
        if (!after.has(priceUnits)) changes.push({ side, priceUnits, lots: 0 });
      }
    }
    return changes;
  }

  /** The last levels read of a book: [bids, asks] by Yes price units. */
  levelsOf(
    outcomeId: number,
  ): readonly [ReadonlyMap<number, number>, ReadonlyMap<number, number>] | undefined {
    return this.#books.get(outcomeId);
  }

  /** Drops a book that no longer exists (a closed market keeps no resting orders). */
  forget(outcomeId: number): void {
    this.#books.delete(outcomeId);
  }
}

function readSide(book: OrderBook, side: BookSide): Levels {
  const levels: Levels = new Map();
  for (const level of book.levels(side, priceLevelsPerSideMax)) levels.set(level.priceUnits, level.lots);
  return levels;
}

function* levelsAsChanges(books: [Levels, Levels]): Iterable<LevelChange> {
  for (const side of bothSides) {
    for (const [priceUnits, lots] of books[side]) yield { side, priceUnits, lots };
  }
}

function goneLevels(books: [Levels, Levels]): LevelChange[] {
  return [...levelsAsChanges(books)].map((change) => ({ ...change, lots: 0 }));
}

/** A tracked book's levels in one option's terms, as the REST snapshot orders them (bids high → low). */
export function trackedLevels(
  tracker: BookTracker,
  outcomeId: number,
  optionIndex: 0 | 1,
): { bids: [number, number][]; asks: [number, number][] } {
  const books = tracker.levelsOf(outcomeId);
  if (books === undefined) return { bids: [], asks: [] };
  return levelsInTerms(books, optionIndex);
}
