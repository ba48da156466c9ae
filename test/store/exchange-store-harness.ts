// The two stores the exchange read-model contract suites run against: SQLite (an in-memory file,
// createExchangeProjectors as the platform composes it) and PostgreSQL (a database of a throwaway
// cluster per test file, a real Engine over PostgresEngineStore holding real leadership, with
// createPostgresExchangeProjectors). A suite calls `exchangeStoreHarnesses()` and runs its body once
// per harness; nothing in it knows which store it is testing.

import { after } from "node:test";
import { pino } from "pino";
import type { ExchangeCommand, ExchangeEvent, ExchangeState } from "../../src/core/exchange.js";
import { exchangeDecider, exchangeStateCodec } from "../../src/core/exchange.js";
import { Engine, type EngineLimits } from "../../src/engine/engine.js";
import { createExchangeProjectors } from "../../src/exchange/exchange-host.js";
import type { ExchangeReadModels } from "../../src/store/exchange-read-models.js";
import type { LegacyBillQueries } from "../../src/store/legacy-bills.js";
import type { NotificationReadModel } from "../../src/store/legacy-notifications.js";
import type { MerchantCommissionReadModel } from "../../src/store/merchant-commissions.js";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import {
  applyPostgresExchangeMigrations,
  createPostgresExchangeProjectors,
} from "../../src/store/postgres/exchange-projectors.js";
import { openPostgresExchangeReadModels } from "../../src/store/postgres/exchange-read-models.js";
import {
  acquireLeadership,
  engineApplicationName,
  type Leadership,
} from "../../src/store/postgres/leadership.js";
import { openPostgresLegacyBillQueries } from "../../src/store/postgres/legacy-bills.js";
import { openPostgresNotificationReadModel } from "../../src/store/postgres/legacy-notifications.js";
import { openPostgresMerchantCommissions } from "../../src/store/postgres/merchant-commissions.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { createSqliteExchangeReadModels } from "../../src/store/sqlite/exchange-read-models.js";
import { createSqliteIdentityStore } from "../../src/store/sqlite/identity.js";
import { createSqliteLegacyBillQueries } from "../../src/store/sqlite/legacy-bills.js";
import { createSqliteLegacyNotifications } from "../../src/store/sqlite/legacy-notifications.js";
import { createSqliteLegacyRequestStore } from "../../src/store/sqlite/legacy-requests.js";
import { createSqliteMerchantCommissions } from "../../src/store/sqlite/merchant-commissions.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";

/** What the suites use of an engine, whatever its store. */
export type ExchangeTestEngine = Pick<
  Engine<ExchangeState, ExchangeCommand, ExchangeEvent, unknown>,
  "submit" | "read" | "close"
>;

export interface BalanceRow {
  readonly available: bigint;
  readonly frozen: bigint;
}

export interface ExchangeRunOptions {
  /** The identity tables (partners with rates, users): merchant commission needs them. */
  readonly identity?: boolean;
  readonly limits?: Partial<EngineLimits>;
}

/** One store with the engine on it, the read models, and the few raw reads the suites check. */
export interface ExchangeRun {
  readonly engine: ExchangeTestEngine;
  readonly readModels: ExchangeReadModels;
  readonly commissions: MerchantCommissionReadModel;
  /** The user's exchange_balances row. */
  balanceRow(userId: number): Promise<BalanceRow | undefined>;
  /**
   * Raw rows of a read-only SQL query written with `?` placeholders (portable SQL only). Integers
   * come back as bigint on both stores, or as a numeric string for a PostgreSQL sum: BigInt() both.
   */
  query(sql: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs a writing SQL statement written with `?` placeholders (fixtures). */
  execute(sql: string, ...params: unknown[]): Promise<void>;
  /**
   * The legacy notification list, over the request queue's table (created here as the queue's store
   * creates it: SQLite's own store; on PostgreSQL the same columns, see legacyRequestsSql).
   */
  notifications(): Promise<NotificationReadModel>;
  /** The legacy bills' queries (need the identity tables). */
  bills(): Promise<LegacyBillQueries>;
  /** Every distinct ledger entry type written, sorted. */
  ledgerTypes(): Promise<string[]>;
  /** The legacy settlement notifications of a market, by user. */
  settlementNotifications(marketId: number): Promise<{ userId: number; content: string }[]>;
  addPartner(name: string, rateBps: number): Promise<number>;
  addUser(partnerId: number, name: string): Promise<number>;
  setCommissionRate(partnerId: number, rateBps: number): Promise<void>;
  /** Closes the engine and opens a new one over the same data (a restart). */
  restart(): Promise<ExchangeRun>;
  /** Closes the engine and everything the run opened. */
  close(): Promise<void>;
}

export interface ExchangeStoreHarness {
  readonly name: "sqlite" | "postgres";
  /** Why this store's suite skips here (PostgreSQL not installed outside CI), or undefined. */
  readonly skip: string | undefined;
  open(clock: () => number, options?: ExchangeRunOptions): Promise<ExchangeRun>;
}

const quiet = pino({ level: "silent" });

function throwFatal(error: Error): never {
  throw error;
}

// ---------------------------------------------------------------------------------------------
// SQLite

async function openSqliteRun(
  clock: () => number,
  options: ExchangeRunOptions,
  existing?: SqliteDatabase,
): Promise<ExchangeRun> {
  const db = existing ?? openDatabase({ path: ":memory:" });
  if (options.identity && existing === undefined) createSqliteIdentityStore(db);
  const engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
    projectors: createExchangeProjectors(db),
    clock,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    onFatal: throwFatal,
    onError: (error) => quiet.error(error),
  });
  return {
    engine,
    readModels: createSqliteExchangeReadModels(db),
    commissions: createSqliteMerchantCommissions(db),
    async balanceRow(userId) {
      return db
        .prepare("SELECT available, frozen FROM exchange_balances WHERE user_id = ?")
        .safeIntegers(true)
        .get(userId) as BalanceRow | undefined;
    },
    async query(sql, ...params) {
      return db
        .prepare(sql)
        .safeIntegers(true)
        .all(...params) as Record<string, unknown>[];
    },
    async execute(sql, ...params) {
      db.prepare(sql).run(...params);
    },
    async notifications() {
      createSqliteLegacyRequestStore(db);
      return createSqliteLegacyNotifications(db);
    },
    async bills() {
      return createSqliteLegacyBillQueries(db);
    },
    async ledgerTypes() {
      return db.prepare("SELECT DISTINCT type FROM exchange_ledger ORDER BY type").pluck().all() as string[];
    },
    async settlementNotifications(marketId) {
      const rows = db
        .prepare("SELECT user_id, content FROM legacy_notifications WHERE market_id = ? ORDER BY user_id")
        .all(marketId) as { user_id: number; content: string }[];
      return rows.map((row) => ({ userId: row.user_id, content: row.content }));
    },
    async addPartner(name, rateBps) {
      const result = db
        .prepare(
          `INSERT INTO identity_partners (name, app_key, app_secret_sealed, api_key_sha256, commission_rate_bps, created_at_ms)
           VALUES (?, ?, 'sealed', ?, ?, 0)`,
        )
        .run(name, `key-${name}`, `sha-${name}`, rateBps);
      return Number(result.lastInsertRowid);
    },
    async addUser(partnerId, name) {
      const result = db
        .prepare(
          `INSERT INTO identity_users (partner_id, marchant_user_id, email, user_name, avatar_url, created_at_ms)
           VALUES (?, ?, ?, ?, '', 0)`,
        )
        .run(partnerId, name, `${name}@example.com`, name);
      return Number(result.lastInsertRowid);
    },
    async setCommissionRate(partnerId, rateBps) {
      db.prepare("UPDATE identity_partners SET commission_rate_bps = ? WHERE partner_id = ?").run(
        rateBps,
        partnerId,
      );
    },
    async restart() {
      await engine.close();
      return openSqliteRun(clock, options, db);
    },
    async close() {
      await engine.close();
      db.close();
    },
  };
}

export const sqliteExchangeHarness: ExchangeStoreHarness = {
  name: "sqlite",
  skip: undefined,
  open: (clock, options = {}) => openSqliteRun(clock, options),
};

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/**
 * The identity tables as the PostgreSQL identity store creates them (SQLite's names and columns,
 * src/store/sqlite/identity.ts), the part merchant commission and the bills read. Test-only: the
 * identity store of its own (pg-services) replaces this once merged, if the names match.
 */
const identityTablesSql = `CREATE TABLE IF NOT EXISTS identity_partners (
    partner_id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name text NOT NULL UNIQUE,
    commission_rate_bps integer NOT NULL DEFAULT 0
  );
  CREATE TABLE IF NOT EXISTS identity_users (
    user_id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    partner_id bigint NOT NULL REFERENCES identity_partners (partner_id),
    marchant_user_id text NOT NULL,
    email text NOT NULL DEFAULT '',
    user_name text NOT NULL DEFAULT '',
    avatar_url text NOT NULL DEFAULT '',
    created_at_ms bigint NOT NULL DEFAULT 0,
    UNIQUE (partner_id, marchant_user_id)
  );`;

/**
 * The request queue's table as the PostgreSQL legacy request store creates it (SQLite's columns,
 * src/store/sqlite/legacy-requests.ts). Test-only, like identityTablesSql.
 */
const legacyRequestsSql = `CREATE TABLE IF NOT EXISTS legacy_requests (
    sequence bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    request_id text NOT NULL UNIQUE,
    merchant_id bigint NOT NULL,
    user_id bigint NOT NULL,
    instruction text NOT NULL,
    status text NOT NULL CHECK (status IN ('PENDING', 'SUCCESS', 'FAILED')),
    error_msg text,
    notify_content text NOT NULL,
    create_time_ms bigint NOT NULL,
    update_time_ms bigint NOT NULL
  )`;

let cluster: Promise<PostgresCluster> | undefined;
let databaseNumber = 0;

let stopHookInstalled = false;

function startedCluster(): Promise<PostgresCluster> {
  cluster ??= startPostgresCluster();
  return cluster;
}

/** Registered at the file's top level (not inside a test, whose own end would run it). */
function installClusterStop(): void {
  if (stopHookInstalled) return;
  stopHookInstalled = true;
  after(async () => {
    if (cluster !== undefined) await (await cluster).stop();
  });
}

/** A new, empty database of this test file's cluster. */
export async function createTestDatabase(prefix: string): Promise<string> {
  databaseNumber += 1;
  return (await startedCluster()).createDatabase(`${prefix}_${process.pid}_${databaseNumber}`);
}

async function openPostgresRun(
  clock: () => number,
  options: ExchangeRunOptions,
  url: string,
  pool: PostgresPool,
): Promise<ExchangeRun> {
  const nodeId = `exchange-test-${databaseNumber}`;
  const leadership: Leadership = await acquireLeadership(pool, { url, nodeId });
  const store = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool, leadership);
  await applyPostgresExchangeMigrations(pool);
  const engine = await Engine.open({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store,
    projectors: createPostgresExchangeProjectors(),
    clock,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    onFatal: throwFatal,
    onError: (error) => quiet.error(error),
  });
  const closeEngine = async () => {
    await engine.close();
    await leadership.release();
  };
  return {
    engine,
    readModels: await openPostgresExchangeReadModels(pool),
    commissions: await openPostgresMerchantCommissions(pool),
    async balanceRow(userId) {
      const result = await pool.query<BalanceRow>(
        "SELECT available, frozen FROM exchange_balances WHERE user_id = $1",
        [userId],
      );
      return result.rows[0];
    },
    async query(sql, ...params) {
      let number = 0;
      const text = sql.replace(/\?/g, () => `$${++number}`);
      return (await pool.query<Record<string, unknown>>(text, params)).rows;
    },
    async execute(sql, ...params) {
      let number = 0;
      await pool.query(
        sql.replace(/\?/g, () => `$${++number}`),
        params,
      );
    },
    async notifications() {
      await pool.query(legacyRequestsSql);
      return openPostgresNotificationReadModel(pool);
    },
    async bills() {
      return openPostgresLegacyBillQueries(pool);
    },
    async ledgerTypes() {
      const result = await pool.query<{ type: string }>(
        'SELECT type FROM exchange_ledger GROUP BY type ORDER BY type COLLATE "C"',
      );
      return result.rows.map((row) => row.type);
    },
    async settlementNotifications(marketId) {
      const result = await pool.query<{ user_id: bigint; content: string }>(
        "SELECT user_id, content FROM legacy_notifications WHERE market_id = $1 ORDER BY user_id",
        [marketId],
      );
      return result.rows.map((row) => ({ userId: Number(row.user_id), content: row.content }));
    },
    async addPartner(name, rateBps) {
      const result = await pool.query<{ partner_id: bigint }>(
        "INSERT INTO identity_partners (name, commission_rate_bps) VALUES ($1, $2) RETURNING partner_id",
        [name, rateBps],
      );
      return Number(result.rows[0]!.partner_id);
    },
    async addUser(partnerId, name) {
      const result = await pool.query<{ user_id: bigint }>(
        "INSERT INTO identity_users (partner_id, marchant_user_id) VALUES ($1, $2) RETURNING user_id",
        [partnerId, name],
      );
      return Number(result.rows[0]!.user_id);
    },
    async setCommissionRate(partnerId, rateBps) {
      await pool.query("UPDATE identity_partners SET commission_rate_bps = $1 WHERE partner_id = $2", [
        rateBps,
        partnerId,
      ]);
    },
    async restart() {
      await closeEngine();
      return openPostgresRun(clock, options, url, pool);
    },
    async close() {
      await closeEngine();
      await pool.end();
    },
  };
}

export function postgresExchangeHarness(): ExchangeStoreHarness {
  const skip = postgresSkipReason();
  if (skip === undefined) installClusterStop();
  return {
    name: "postgres",
    skip,
    async open(clock, options = {}) {
      const url = await createTestDatabase("exchange");
      const pool = openPostgresPool({
        url,
        applicationName: engineApplicationName(`exchange-test-${databaseNumber}`),
      });
      if (options.identity) await pool.query(identityTablesSql);
      return openPostgresRun(clock, options, url, pool);
    },
  };
}

/** Both stores: every contract suite runs once per harness. */
export function exchangeStoreHarnesses(): ExchangeStoreHarness[] {
  return [sqliteExchangeHarness, postgresExchangeHarness()];
}
