// The port of the per-minute price samples (src/realtime/price-samples.ts takes them; GET
// /prices-history reads them). Their SQLite adapter: src/store/sqlite/price-samples.ts.

export interface PriceSample {
  readonly optionId: number;
  readonly timeMs: number;
  /** Atoms, in the option's own terms. */
  readonly priceAtoms: number;
}

export interface PriceSampleStore {
  insert(samples: readonly PriceSample[]): Promise<void>;
  /** Oldest first, within [fromMs, toMs], at most `limit`. */
  range(optionId: number, fromMs: number, toMs: number, limit: number): Promise<PriceSample[]>;
}
