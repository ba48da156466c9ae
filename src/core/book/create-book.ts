import { FastBook } from "./fast-book.js";
import type { BookKind, OrderBook } from "./order-book.js";
import { ReferenceBook } from "./reference-book.js";

export function createBook(kind: BookKind, tickUnits: number): OrderBook {
  switch (kind) {
    case "fast":
      return new FastBook(tickUnits);
    case "reference":
      return new ReferenceBook(tickUnits);
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown book kind ${String(unreachable)}`);
    }
  }
}
