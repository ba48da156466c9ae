// A market created the way the platform creates one: a real engine on the store, with that store's
// real exchange projectors writing the `markets` read model in the commit. For the contract tests of
// stores that read what the exchange projects (the applications' title comparison), so a table or
// column name that drifts between the exchange and its readers fails a test instead of reading
// nothing. The engine is closed again before the caller goes on.

import { pino } from "pino";
import {
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import { createExchangeProjectors } from "../../src/exchange/exchange-host.js";
import type { PostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import {
  applyPostgresExchangeMigrations,
  createPostgresExchangeProjectors,
} from "../../src/store/postgres/exchange-projectors.js";
import { acquireLeadership } from "../../src/store/postgres/leadership.js";
import type { SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";

const quiet = pino({ level: "silent" });
const nowMs = 1_800_000_000_000;

function throwFatal(error: Error): never {
  throw error;
}

function marketIdOf(
  result: Awaited<ReturnType<Engine<unknown, ExchangeCommand, ExchangeEvent, unknown>["submit"]>>,
): number {
  const event = result.ok ? result.events[0] : undefined;
  if (event?.type !== "MarketCreated") throw new Error("the engine did not create the market");
  return event.marketId;
}

/** Creates a market of this title through an engine on the SQLite file; returns its id. */
export async function projectSqliteMarket(db: SqliteDatabase, title: string): Promise<number> {
  const engine = await Engine.open({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
    projectors: createExchangeProjectors(db),
    clock: () => nowMs,
    onFatal: throwFatal,
    onError: (error) => quiet.error(error),
  });
  try {
    return marketIdOf(await engine.submit(createMarketCommand({ title })));
  } finally {
    await engine.close();
  }
}

/**
 * Creates a market of this title through an engine node on the PostgreSQL database (leadership,
 * the engine's migrations and the exchange's, as the engine role runs them); returns its id.
 */
export async function projectPostgresMarket(pool: PostgresPool, url: string, title: string): Promise<number> {
  const leadership = await acquireLeadership(pool, { url, nodeId: `market-${process.pid}` });
  try {
    const store = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool, leadership);
    await applyPostgresExchangeMigrations(pool);
    const engine = await Engine.open({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store,
      projectors: createPostgresExchangeProjectors(),
      clock: () => nowMs,
      onFatal: throwFatal,
      onError: (error) => quiet.error(error),
    });
    try {
      return marketIdOf(await engine.submit(createMarketCommand({ title })));
    } finally {
      await engine.close();
    }
  } finally {
    await leadership.release();
  }
}
