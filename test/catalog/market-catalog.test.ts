// The market catalogue on SQLite (FTS5) and PostgreSQL (tsvector): the one contract
// (market-catalog-contract.ts), each driven by the real engine on its own store. On SQLite the real
// exchange projector writes the markets and positions; on PostgreSQL a stand-in does
// (test/support/postgres-exchange-stand-in.ts) until the PostgreSQL exchange projector is merged.

import { after, describe, it } from "node:test";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import {
  openPostgresPool,
  type PostgresClient,
  type PostgresPool,
} from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { acquireLeadership, engineApplicationName } from "../../src/store/postgres/leadership.js";
import { openPostgresMarketCatalog } from "../../src/store/postgres/market-catalog.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { createSqliteExchangeProjector } from "../../src/store/sqlite/exchange-read-models.js";
import { createSqliteMarketCatalog } from "../../src/store/sqlite/market-catalog.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { copyPositions, exchangeStandInProjector } from "../support/postgres-exchange-stand-in.js";
import { foreignExchangeTables } from "../support/postgres-foreign-tables.js";
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
      projectors: [createSqliteExchangeProjector(db), catalog.projector],
      clock: () => nowMs,
      onFatal: (error) => {
        throw error;
      },
    });
    return {
      engine: engine as unknown as CatalogEngine,
      store: catalog.store,
      changed,
      async syncPositions() {},
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
      await pool.query(foreignExchangeTables);
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
        projectors: [exchangeStandInProjector, catalog.projector],
        clock: () => nowMs,
        onFatal: (error) => {
          throw error;
        },
      });
      return {
        engine: engine as unknown as CatalogEngine,
        store: catalog.store,
        changed,
        async syncPositions() {
          await copyPositions(pool, await engine.read((state) => state));
        },
        // The stand-in keeps no volumes: the exchange projector's own tests cover them.
        async totals() {
          return undefined;
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
