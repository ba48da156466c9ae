// Price points that time alone produces: every option of an open market gets one each
// priceSampleIntervalMs (a minute by default), so /prices-history has a point per option per minute
// even when nothing trades. Trade prices come from the read models (exchange_price_points); these
// samples live in their own table, are derived data (not journaled), and are never updated.

import type { Logger } from "pino";
import type { ExchangeEngine } from "../exchange/exchange-host.js";
import type { SqliteDatabase } from "../store/sqlite/database.js";
import { applyMigrations } from "../store/sqlite/database.js";
import { optionPricesAtoms } from "./option-price.js";

export interface PriceSample {
  readonly optionId: number;
  readonly timeMs: number;
  /** Atoms, in the option's own terms. */
  readonly priceAtoms: number;
}

export interface PriceSampleStore {
  insert(samples: readonly PriceSample[]): void;
  /** Oldest first, within [fromMs, toMs], at most `limit`. */
  range(optionId: number, fromMs: number, toMs: number, limit: number): PriceSample[];
}

const migrations = [
  `CREATE TABLE realtime_price_samples (
     option_id INTEGER NOT NULL,
     time_ms INTEGER NOT NULL,
     price INTEGER NOT NULL,
     PRIMARY KEY (option_id, time_ms)
   ) WITHOUT ROWID`,
];

export function openPriceSampleStore(db: SqliteDatabase): PriceSampleStore {
  applyMigrations(db, "realtime-price-samples", migrations);
  const insert = db.prepare(
    "INSERT OR REPLACE INTO realtime_price_samples (option_id, time_ms, price) VALUES (?, ?, ?)",
  );
  const insertAll = db.transaction((samples: readonly PriceSample[]) => {
    for (const sample of samples) insert.run(sample.optionId, sample.timeMs, sample.priceAtoms);
  });
  const range = db.prepare<[number, number, number, number], { time_ms: number; price: number }>(
    "SELECT time_ms, price FROM realtime_price_samples WHERE option_id = ? AND time_ms BETWEEN ? AND ? ORDER BY time_ms LIMIT ?",
  );
  return {
    insert: (samples) => insertAll(samples),
    range: (optionId, fromMs, toMs, limit) =>
      range
        .all(optionId, fromMs, toMs, limit)
        .map((row) => ({ optionId, timeMs: row.time_ms, priceAtoms: row.price })),
  };
}

/** Reads every open market's option prices and records them; returns the samples taken. */
export async function samplePrices(
  engine: ExchangeEngine,
  store: PriceSampleStore,
  nowMs: number,
): Promise<PriceSample[]> {
  const samples = await engine.read((state) => {
    const taken: PriceSample[] = [];
    for (const market of state.markets.values()) {
      if (market.status !== "open") continue;
      for (const outcomeId of market.outcomeIds) {
        const outcome = state.outcomes.get(outcomeId);
        if (outcome === undefined) continue;
        const prices = optionPricesAtoms(state, outcome);
        outcome.optionIds.forEach((optionId, optionIndex) => {
          taken.push({ optionId, timeMs: nowMs, priceAtoms: prices[optionIndex as 0 | 1] });
        });
      }
    }
    return taken;
  });
  if (samples.length > 0) store.insert(samples);
  return samples;
}

export function startPriceSampler(options: {
  engine: ExchangeEngine;
  store: PriceSampleStore;
  intervalMs: number;
  nowMs: () => number;
  logger: Logger;
}): { stop(): void } {
  const timer = setInterval(() => {
    samplePrices(options.engine, options.store, options.nowMs()).catch((error: unknown) =>
      options.logger.warn({ err: error }, "price sampling failed"),
    );
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
