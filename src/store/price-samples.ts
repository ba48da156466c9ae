// The port of the per-minute price samples (src/realtime/price-samples.ts takes them; GET
// /prices-history reads them). Their SQLite adapter: src/store/sqlite/price-samples.ts.

import { ddl, type IntegerColumn, type Sql, sql, toNumber } from "./sql.js";

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

// ---- What both adapters share: the table (derived data, never journaled, never updated) and the
// range read. The insert is each dialect's own: SQLite loops in one transaction, PostgreSQL sends
// the round as column arrays in one statement.

export const priceSampleMigrations: readonly Sql[] = [
  sql`CREATE TABLE realtime_price_samples (
     option_id ${ddl.int64} NOT NULL,
     time_ms ${ddl.int64} NOT NULL,
     price ${ddl.int64} NOT NULL,
     PRIMARY KEY (option_id, time_ms)
   )${ddl.withoutRowid}`,
];

export const priceSampleStatements = {
  range: sql<{ optionId: number; fromMs: number; toMs: number; limit: number }>`SELECT time_ms, price
     FROM realtime_price_samples
     WHERE option_id = ${"optionId"} AND time_ms BETWEEN ${"fromMs"} AND ${"toMs"} ORDER BY time_ms LIMIT ${"limit"}`,
};

export interface PriceSampleRow {
  time_ms: IntegerColumn;
  price: IntegerColumn;
}

export const priceSampleOf = (optionId: number, row: PriceSampleRow): PriceSample => ({
  optionId,
  timeMs: toNumber(row.time_ms),
  priceAtoms: toNumber(row.price),
});
