// SQLite adapter of the price samples (port and shared statements: src/store/price-samples.ts).

import {
  type PriceSample,
  type PriceSampleRow,
  type PriceSampleStore,
  priceSampleMigrations,
  priceSampleOf,
  priceSampleStatements,
} from "../price-samples.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareSqlite, sqliteText } from "./statements.js";

export function openPriceSampleStore(db: SqliteDatabase): PriceSampleStore {
  applyMigrations(db, "realtime-price-samples", priceSampleMigrations.map(sqliteText));
  const insert = db.prepare(
    // A sample of an (option, time) already there is kept: every node's sampler times an interval's
    // samples alike (src/realtime/price-samples.ts), and the first one stands.
    "INSERT INTO realtime_price_samples (option_id, time_ms, price) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const insertAll = db.transaction((samples: readonly PriceSample[]) => {
    for (const sample of samples) insert.run(sample.optionId, sample.timeMs, sample.priceAtoms);
  });
  const range = prepareSqlite(db, priceSampleStatements.range);
  return {
    insert: async (samples) => {
      insertAll(samples);
    },
    range: async (optionId, fromMs, toMs, limit) =>
      range.all<PriceSampleRow>({ optionId, fromMs, toMs, limit }).map((row) => priceSampleOf(optionId, row)),
  };
}
