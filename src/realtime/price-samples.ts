// Price points that time alone produces: every option of an open market gets one each
// priceSampleIntervalMs (a minute by default), so /prices-history has a point per option per minute
// even when nothing trades. Trade prices come from the read models (exchange_price_points); these
// samples live in their own table, are derived data (not journaled), and are never updated.
//
// Every API node runs a sampler on the one database (PostgreSQL): a sample is timed at the START of
// its interval, not at the tick, so the nodes' samples of one interval have the same (option, time)
// key and the store keeps the first (an insert of an existing key is a no-op), never one per node.

import type { Logger } from "pino";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { PriceSample, PriceSampleStore } from "../store/price-samples.js";
import { optionPricesAtoms } from "./option-price.js";

export type { PriceSample, PriceSampleStore };

/** The start of the sampling interval `nowMs` falls in: the time every node gives that interval's samples. */
export function sampleTimeMs(nowMs: number, intervalMs: number): number {
  return nowMs - (((nowMs % intervalMs) + intervalMs) % intervalMs);
}

/** Reads every open market's option prices and records them at `nowMs`; returns the samples taken. */
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
  if (samples.length > 0) await store.insert(samples);
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
    const timeMs = sampleTimeMs(options.nowMs(), options.intervalMs);
    samplePrices(options.engine, options.store, timeMs).catch((error: unknown) =>
      options.logger.warn({ err: error }, "price sampling failed"),
    );
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
