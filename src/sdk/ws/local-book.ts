// A client's copy of one book: seeded from GET /orderbook/book, then kept by the deltas of
// /socket/clob-price-update. Each delta carries `seq` (the journal sequence after which its level
// holds `size`) and `prevSeq` (the seq of the book's previous update). Sizes are totals, not
// increments, so applying an update twice is harmless; what must not happen is to miss one, which
// a `prevSeq` newer than our own `seq` reveals.

export interface BookLevel {
  readonly price: string;
  readonly size: string;
}

export interface BookSeed {
  readonly seq: number;
  readonly bids: readonly BookLevel[];
  readonly asks: readonly BookLevel[];
}

export interface BookDelta {
  readonly seq: number;
  readonly prevSeq: number;
  readonly side: "BUY" | "SELL";
  readonly price: string;
  readonly size: string;
}

export type ApplyResult = "applied" | "stale" | "gap";

export class LocalBook {
  #seq = -1;
  readonly #bids = new Map<string, string>();
  readonly #asks = new Map<string, string>();

  get seq(): number {
    return this.#seq;
  }

  get seeded(): boolean {
    return this.#seq >= 0;
  }

  seed(snapshot: BookSeed): void {
    this.#bids.clear();
    this.#asks.clear();
    for (const level of snapshot.bids) this.#bids.set(level.price, level.size);
    for (const level of snapshot.asks) this.#asks.set(level.price, level.size);
    this.#seq = snapshot.seq;
  }

  apply(delta: BookDelta): ApplyResult {
    if (delta.seq < this.#seq) return "stale";
    if (delta.seq > this.#seq && delta.prevSeq > this.#seq) return "gap";
    const levels = delta.side === "BUY" ? this.#bids : this.#asks;
    if (delta.size === "0") levels.delete(delta.price);
    else levels.set(delta.price, delta.size);
    this.#seq = delta.seq;
    return "applied";
  }

  /** Bids high → low and asks low → high, as GET /orderbook/book lists them. */
  levels(): { bids: BookLevel[]; asks: BookLevel[] } {
    const list = (levels: Map<string, string>, descending: boolean) =>
      [...levels]
        .map(([price, size]) => ({ price, size }))
        .sort((a, b) => (descending ? Number(b.price) - Number(a.price) : Number(a.price) - Number(b.price)));
    return { bids: list(this.#bids, true), asks: list(this.#asks, false) };
  }
}
