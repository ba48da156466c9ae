// The two stores the exchange read-model contract suites run against: SQLite (an in-memory file,
// createExchangeProjectors as the platform composes it, projected behind the journal in small steps
// of their own as the platform's host runs them: src/engine/deferred-projection.ts, every read
// catching them up first) and PostgreSQL (a database of a throwaway
// cluster per test file, a real Engine over PostgresEngineStore holding real leadership, with
// createPostgresExchangeProjectors). A suite calls `exchangeStoreHarnesses()` and runs its body once
// per harness; nothing in it knows which store it is testing.

import { after } from "node:test";
import { pino } from "pino";
import type { ExchangeCommand, ExchangeEvent, ExchangeState } from "../../src/core/exchange.js";
import { exchangeDecider, exchangeStateCodec } from "../../src/core/exchange.js";
import { DeferredProjection } from "../../src/engine/deferred-projection.js";
import { Engine, type EngineLimits } from "../../src/engine/engine.js";
import { createExchangeProjectors } from "../../src/exchange/exchange-host.js";
import { withCaughtUpReads } from "../../src/store/caught-up-reads.js";
import type { ExchangeReadModels } from "../../src/store/exchange-read-models.js";
import type { IdentityStore } from "../../src/store/identity.js";
import type { LegacyRequestStore } from "../../src/store/legacy.js";
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
import { openPostgresIdentityStore } from "../../src/store/postgres/identity.js";
import {
  acquireLeadership,
  engineApplicationName,
  type Leadership,
} from "../../src/store/postgres/leadership.js";
import { openPostgresLegacyBillQueries } from "../../src/store/postgres/legacy-bills.js";
import { openPostgresNotificationReadModel } from "../../src/store/postgres/legacy-notifications.js";
import { openPostgresLegacyRequestStore } from "../../src/store/postgres/legacy-requests.js";
import { openPostgresMerchantCommissions } from "../../src/store/postgres/merchant-commissions.js";
import {
  PostgresReadModelProjection,
  withProjectedReads,
} from "../../src/store/postgres/read-model-projection.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { createSqliteExchangeReadModels } from "../../src/store/sqlite/exchange-read-models.js";
import { createSqliteIdentityStore } from "../../src/store/sqlite/identity.js";
import { createSqliteLegacyBillQueries } from "../../src/store/sqlite/legacy-bills.js";
import { createSqliteLegacyNotifications } from "../../src/store/sqlite/legacy-notifications.js";
import { createSqliteLegacyRequestStore } from "../../src/store/sqlite/legacy-requests.js";
import { createSqliteMerchantCommissions } from "../../src/store/sqlite/merchant-commissions.js";
import { SqliteReadModelProjection } from "../../src/store/sqlite/read-model-projection.js";
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
  /**
   * The identity store's tables (partners with rates, users), migrated by the real identity store of
   * the run's store: merchant commission and the bills read them.
   */
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
  /** The legacy request queue (the real store of the run's store), whose results the list shows. */
  legacyRequests(): Promise<LegacyRequestStore>;
  /** The legacy notification list, over the request queue's table (opened after the queue's store). */
  notifications(): Promise<NotificationReadModel>;
  /** The legacy bills' queries (need the identity tables). */
  bills(): Promise<LegacyBillQueries>;
  /** Every distinct ledger entry type written, sorted. */
  ledgerTypes(): Promise<string[]>;
  /** The legacy settlement notifications of a market, by user. */
  settlementNotifications(marketId: number): Promise<{ userId: number; content: string }[]>;
  /** A partner through the identity store (needs `identity`). */
  addPartner(name: string, rateBps: number): Promise<number>;
  /** A user of the partner through the identity store (needs `identity`). */
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

/** addPartner and addUser of a run, through the identity store's own port (both stores alike). */
function identityFixtures(identity: IdentityStore | undefined): Pick<ExchangeRun, "addPartner" | "addUser"> {
  const store = (): IdentityStore => {
    if (identity === undefined) throw new Error("open the run with { identity: true }");
    return identity;
  };
  return {
    async addPartner(name, rateBps) {
      const partner = await store().createPartner({
        name,
        appKey: `key-${name}`,
        appSecretSealed: "sealed",
        apiKeySha256: `sha-${name}`,
        rsaPublicKey: null,
        commissionRateBps: rateBps,
        webhookUrl: null,
        createdAtMs: 0,
      });
      return partner.partnerId;
    },
    async addUser(partnerId, name) {
      const user = await store().registerUser({
        partnerId,
        marchantUserId: name,
        email: `${name}@example.com`,
        avatarUrl: "",
        nowMs: 0,
      });
      return user.userId;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// SQLite

async function openSqliteRun(
  clock: () => number,
  options: ExchangeRunOptions,
  existing?: SqliteDatabase,
): Promise<ExchangeRun> {
  const db = existing ?? openDatabase({ path: ":memory:" });
  const identity = options.identity ? createSqliteIdentityStore(db) : undefined;
  const store = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db);
  const engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store,
    projectors: [],
    clock,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    onFatal: throwFatal,
    onError: (error) => quiet.error(error),
  });
  const projection = await DeferredProjection.open({
    target: new SqliteReadModelProjection(db, createExchangeProjectors(db)),
    journal: store,
    committedSequence: engine.committedSequence,
    // Steps that cut across the engine's batches, scheduled as on the platform: the answers must
    // not depend on where steps fall.
    limits: sqliteProjectionStepLimits,
    onFatal: throwFatal,
  });
  engine.onCommitted((entries) => projection.committed(entries));
  const caughtUp = () => projection.catchUp();
  return {
    engine: {
      submit: (command) => engine.submit(command),
      read: (reader) => engine.read(reader),
      async close() {
        await engine.close();
        projection.close();
      },
    },
    readModels: withCaughtUpReads(createSqliteExchangeReadModels(db), caughtUp),
    commissions: withCaughtUpReads(createSqliteMerchantCommissions(db), caughtUp),
    async balanceRow(userId) {
      caughtUp();
      return db
        .prepare("SELECT available, frozen FROM exchange_balances WHERE user_id = ?")
        .safeIntegers(true)
        .get(userId) as BalanceRow | undefined;
    },
    async query(sql, ...params) {
      caughtUp();
      return db
        .prepare(sql)
        .safeIntegers(true)
        .all(...params) as Record<string, unknown>[];
    },
    async execute(sql, ...params) {
      caughtUp();
      db.prepare(sql).run(...params);
    },
    async legacyRequests() {
      return createSqliteLegacyRequestStore(db);
    },
    async notifications() {
      createSqliteLegacyRequestStore(db);
      return withCaughtUpReads(createSqliteLegacyNotifications(db), caughtUp);
    },
    async bills() {
      return withCaughtUpReads(createSqliteLegacyBillQueries(db), caughtUp);
    },
    async ledgerTypes() {
      caughtUp();
      return db.prepare("SELECT DISTINCT type FROM exchange_ledger ORDER BY type").pluck().all() as string[];
    },
    async settlementNotifications(marketId) {
      caughtUp();
      const rows = db
        .prepare("SELECT user_id, content FROM legacy_notifications WHERE market_id = ? ORDER BY user_id")
        .all(marketId) as { user_id: number; content: string }[];
      return rows.map((row) => ({ userId: row.user_id, content: row.content }));
    },
    ...identityFixtures(identity),
    async setCommissionRate(partnerId, rateBps) {
      // As the platform's identity store: what was committed before is projected at the old rate.
      caughtUp();
      db.prepare("UPDATE identity_partners SET commission_rate_bps = ? WHERE partner_id = ?").run(
        rateBps,
        partnerId,
      );
    },
    async restart() {
      await engine.close();
      projection.close();
      return openSqliteRun(clock, options, db);
    },
    async close() {
      await engine.close();
      projection.close();
      db.close();
    },
  };
}

/** Small steps, projected soon: many steps per run, each cutting the engine's batches anywhere. */
const sqliteProjectionStepLimits = { stepEntriesMax: 7, stepEntriesMin: 5, delayMs: 1 };

export const sqliteExchangeHarness: ExchangeStoreHarness = {
  name: "sqlite",
  skip: undefined,
  open: (clock, options = {}) => openSqliteRun(clock, options),
};

// ---------------------------------------------------------------------------------------------
// PostgreSQL

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
  // The identity store's own migrations before the engine, as an API node would have run them.
  const identity = options.identity ? await openPostgresIdentityStore(pool) : undefined;
  await applyPostgresExchangeMigrations(pool);
  // As an engine node leads: the journal alone in each commit, the read models behind it in steps
  // (small ones here, cutting the engine's batches anywhere), every read waiting for them first.
  const engine = await Engine.open({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store,
    projectors: [],
    clock,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    onFatal: throwFatal,
    onError: (error) => quiet.error(error),
  });
  const projection = await PostgresReadModelProjection.open({
    pool,
    projectors: createPostgresExchangeProjectors(),
    journal: store,
    committedSequence: engine.committedSequence,
    limits: postgresProjectionStepLimits,
    onFatal: throwFatal,
  });
  engine.onCommitted((entries) => projection.committed(entries));
  const caughtUp = () => projection.catchUp();
  const projected = <Store extends object>(store: Store) =>
    withProjectedReads(store, () => projection.catchUp());
  const closeEngine = async () => {
    await engine.close();
    await projection.close();
    await leadership.release();
  };
  return {
    engine,
    readModels: projected(await openPostgresExchangeReadModels(pool)),
    commissions: projected(await openPostgresMerchantCommissions(pool)),
    async balanceRow(userId) {
      await caughtUp();
      const result = await pool.query<BalanceRow>(
        "SELECT available, frozen FROM exchange_balances WHERE user_id = $1",
        [userId],
      );
      return result.rows[0];
    },
    async query(sql, ...params) {
      await caughtUp();
      let number = 0;
      const text = sql.replace(/\?/g, () => `$${++number}`);
      return (await pool.query<Record<string, unknown>>(text, params)).rows;
    },
    async execute(sql, ...params) {
      await caughtUp();
      let number = 0;
      await pool.query(
        sql.replace(/\?/g, () => `$${++number}`),
        params,
      );
    },
    async legacyRequests() {
      return openPostgresLegacyRequestStore(pool);
    },
    async notifications() {
      await openPostgresLegacyRequestStore(pool);
      return projected(await openPostgresNotificationReadModel(pool));
    },
    async bills() {
      return projected(await openPostgresLegacyBillQueries(pool));
    },
    async ledgerTypes() {
      await caughtUp();
      const result = await pool.query<{ type: string }>(
        'SELECT type FROM exchange_ledger GROUP BY type ORDER BY type COLLATE "C"',
      );
      return result.rows.map((row) => row.type);
    },
    async settlementNotifications(marketId) {
      await caughtUp();
      const result = await pool.query<{ user_id: bigint; content: string }>(
        "SELECT user_id, content FROM legacy_notifications WHERE market_id = $1 ORDER BY user_id",
        [marketId],
      );
      return result.rows.map((row) => ({ userId: Number(row.user_id), content: row.content }));
    },
    ...identityFixtures(identity),
    async setCommissionRate(partnerId, rateBps) {
      // As the platform's identity store: what was committed before is projected at the old rate.
      await caughtUp();
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

/** Small steps, projected soon (as SQLite's above). */
const postgresProjectionStepLimits = { stepEntriesMax: 7, stepEntriesMin: 5, delayMs: 1 };

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
      return openPostgresRun(clock, options, url, pool);
    },
  };
}

/** Both stores: every contract suite runs once per harness. */
export function exchangeStoreHarnesses(): ExchangeStoreHarness[] {
  return [sqliteExchangeHarness, postgresExchangeHarness()];
}
