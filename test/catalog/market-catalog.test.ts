// The market catalogue on SQLite (FTS5) and PostgreSQL (tsvector): the one contract
// (market-catalog-contract.ts), each driven by the real engine on its own store, with that store's
// real exchange projectors writing the markets and positions the catalogue reads, in the same
// commits, as the platform composes them.

import { after, describe, it } from "node:test";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import { createExchangeProjectors } from "../../src/exchange/exchange-host.js";
import {
  openPostgresPool,
  type PostgresClient,
  type PostgresPool,
} from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import {
  applyPostgresExchangeMigrations,
  createPostgresExchangeProjectors,
} from "../../src/store/postgres/exchange-projectors.js";
import { acquireLeadership, engineApplicationName } from "../../src/store/postgres/leadership.js";
import { openPostgresMarketCatalog } from "../../src/store/postgres/market-catalog.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { createSqliteMarketCatalog } from "../../src/store/sqlite/market-catalog.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import {
  type CatalogEngine,
  type CatalogHarness,
  describeMarketCatalogContract,
  nowMs,
} from "./market-catalog-contract.js";

const sqlite: CatalogHarness = {
  name: "sqlite",
  async open() {
    const db: SqliteDatabase = openDatabase({ path: ":memory:" });
    const catalog = createSqliteMarketCatalog(db);
    const changed: (readonly number[] | undefined)[] = [];
    catalog.onMarketsChanged((marketIds) => changed.push([...marketIds]));
    const engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
      projectors: createExchangeProjectors(db, { projectors: [catalog.projector] }),
      clock: () => nowMs,
      onFatal: (error) => {
        throw error;
      },
    });
    return {
      engine: engine as unknown as CatalogEngine,
      store: catalog.store,
      changed,
      async totals(marketId) {
        return db.prepare("SELECT volume, fee_income FROM markets WHERE market_id = ?").get(marketId);
      },
      async close() {
        await engine.close();
        db.close();
      },
    };
  },
};

describe("market catalogue: sqlite", () => describeMarketCatalogContract(sqlite));

const skipReason = postgresSkipReason();
if (skipReason !== undefined) {
  it("market catalogue: postgres", { skip: skipReason }, () => {});
} else {
  let cluster: Promise<PostgresCluster> | undefined;
  let databaseNumber = 0;
  after(async () => {
    if (cluster !== undefined) await (await cluster).stop();
  });
  const postgres: CatalogHarness = {
    name: "postgres",
    async open() {
      cluster ??= startPostgresCluster();
      databaseNumber += 1;
      const url = await (await cluster).createDatabase(`catalog_${databaseNumber}`);
      const nodeId = `catalog-${databaseNumber}`;
      const pool: PostgresPool = openPostgresPool({ url, applicationName: engineApplicationName(nodeId) });
      await applyPostgresExchangeMigrations(pool);
      const leadership = await acquireLeadership(pool, { url, nodeId });
      const catalog = await openPostgresMarketCatalog(pool);
      const changed: (readonly number[] | undefined)[] = [];
      catalog.onMarketsChanged((marketIds) =>
        changed.push(marketIds === undefined ? undefined : [...marketIds]),
      );
      const engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, PostgresClient>({
        decider: exchangeDecider,
        codec: exchangeStateCodec,
        store: await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool, leadership),
        projectors: createPostgresExchangeProjectors({ projectors: [catalog.projector] }),
        clock: () => nowMs,
        onFatal: (error) => {
          throw error;
        },
      });
      return {
        engine: engine as unknown as CatalogEngine,
        store: catalog.store,
        changed,
        async totals(marketId) {
          const result = await pool.query("SELECT volume, fee_income FROM markets WHERE market_id = $1", [
            marketId,
          ]);
          return result.rows[0];
        },
        async close() {
          await engine.close();
          await catalog.close();
          await leadership.release();
          await pool.end();
        },
      };
    },
  };
  describe("market catalogue: postgres", () => describeMarketCatalogContract(postgres));
}
