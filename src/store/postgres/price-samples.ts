// PostgreSQL adapter of the price samples (port: src/store/price-samples.ts; SQLite twin:
// src/store/sqlite/price-samples.ts). Every API node runs a sampler on this one database; each times
// an interval's samples at the interval's start (src/realtime/price-samples.ts), so the nodes'
// samples of one interval share the key (option_id, time_ms) and ON CONFLICT DO NOTHING keeps the
// first: one row per option and interval whatever the number of nodes, with no read before the write.

import {
  type PriceSampleRow,
  type PriceSampleStore,
  priceSampleMigrations,
  priceSampleOf,
  priceSampleStatements,
} from "../price-samples.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresText, preparePostgres } from "./statements.js";

const range = preparePostgres("predex-price-samples-range", priceSampleStatements.range);

export async function openPostgresPriceSampleStore(pool: PostgresPool): Promise<PriceSampleStore> {
  await applyPostgresMigrations(pool, "realtime-price-samples", priceSampleMigrations.map(postgresText));
  return {
    async insert(samples) {
      if (samples.length === 0) return;
      // One statement for the whole round's samples (every option of every open market).
      await pool.query({
        name: "predex-price-samples-insert",
        text: `INSERT INTO realtime_price_samples (option_id, time_ms, price)
               SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
               ON CONFLICT DO NOTHING`,
        values: [
          samples.map((sample) => sample.optionId),
          samples.map((sample) => sample.timeMs),
          samples.map((sample) => sample.priceAtoms),
        ],
      });
    },
    async range(optionId, fromMs, toMs, limit) {
      const result = await range.query<PriceSampleRow>(pool, { optionId, fromMs, toMs, limit });
      return result.rows.map((row) => priceSampleOf(optionId, row));
    },
  };
}
