// The composition seam between the platform and its database: every port the platform needs, built
// once by openSqlitePlatformStores (the embedded file, `npm start`) or openPostgresPlatformStores
// (PREDEX_DATABASE_URL), and the exchange engine as this node has it. server.ts builds the services
// from a PlatformStores and never asks which database is behind it.

import type { Logger } from "pino";
import type { DeferredProjectionLimits } from "../engine/deferred-projection.js";
import type { EngineLimits, EngineObserver } from "../engine/engine.js";
import type { EngineFatalError } from "../engine/errors.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import { openExchangeHost } from "../exchange/exchange-host.js";
import type { JournalArchiver } from "../exchange/journal-archiver.js";
import { nonceWindowMs } from "../gateway/verifier.js";
import type { CategoryStore } from "../store/categories.js";
import { withCaughtUpReads } from "../store/caught-up-reads.js";
import type { ChainStore } from "../store/chain-store.js";
import type { ConsoleQueries } from "../store/console-queries.js";
import type { DepositAddressStore } from "../store/deposit-addresses.js";
import type { DepositKeyRegistry } from "../store/deposit-key-registry.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import type { NonceStore } from "../store/gateway-nonces.js";
import type { IdentityStore } from "../store/identity.js";
import type { LegacyStores } from "../store/legacy-stores.js";
import type { MarketCatalogStore } from "../store/market-catalog.js";
import type { MfaStore } from "../store/mfa.js";
import type { OperationsQueries } from "../store/operations-queries.js";
import type { PartnerRateLimits } from "../store/partner-rate-limits.js";
import type { PriceSampleStore } from "../store/price-samples.js";
import type { SharedRateLimitStores } from "../store/shared-rate-limits.js";
import { createSqliteCategoryStore } from "../store/sqlite/categories.js";
import { createConsoleQueries } from "../store/sqlite/console-queries.js";
import type { SqliteDatabase } from "../store/sqlite/database.js";
import { createSqliteDepositAddressStore } from "../store/sqlite/deposit-addresses.js";
import { createSqliteGatewayNonceStore } from "../store/sqlite/gateway-nonces.js";
import { createSqliteIdentityStore } from "../store/sqlite/identity.js";
import { createSqliteLegacyStores } from "../store/sqlite/legacy-stores.js";
import { createSqliteMarketCatalog } from "../store/sqlite/market-catalog.js";
import { createSqliteMfaStore } from "../store/sqlite/mfa.js";
import { createSqliteOperationsQueries } from "../store/sqlite/operations-queries.js";
import { createSqlitePartnerRateLimits } from "../store/sqlite/partner-rate-limits.js";
import { openPriceSampleStore } from "../store/sqlite/price-samples.js";

/** What the engine of this node needs from the platform (the same for every store). */
export interface PlatformExchangeOptions {
  readonly clock: () => number;
  readonly logger: Logger;
  readonly onFatal: (error: EngineFatalError | Error) => void;
  readonly limits?: Partial<EngineLimits> | undefined;
  /**
   * How the read models follow the journal (SQLite: src/engine/deferred-projection.ts; PostgreSQL:
   * the all-in-one node's engine node, src/store/postgres/read-model-projection.ts).
   */
  readonly projectionLimits?: Partial<DeferredProjectionLimits> | undefined;
  readonly observer?: EngineObserver | undefined;
  readonly journalArchiveDir?: string | undefined;
  /** See PlatformOptions.userHistoryIndexLag (SQLite's bulk user index only). */
  readonly userHistoryIndexLag?: number | undefined;
}

/** The exchange as this node has it: its own engine (SQLite, a leader) or a forwarding engine. */
export interface PlatformExchange {
  readonly engine: ExchangeEngine;
  /** Orders, trades, ledger, positions… as the engine's projectors wrote them. */
  readonly readModels: ExchangeReadModels;
  readonly journalArchiver: JournalArchiver | undefined;
  /**
   * Forks this node's copies of the journal met so far (an API node's replica, an engine node's
   * standby): the metric predex_journal_forks_total. Absent where nothing follows a journal.
   */
  readonly journalForks?: () => number;
  /**
   * Brings this node's read models up to the last committed command (SQLite, synchronously) or
   * waits until they hold what this node's replica holds (PostgreSQL: it returns a Promise).
   * Whatever reads a projected table outside the stores (a cache built from them) calls it first.
   */
  readonly catchUpReadModels?: () => void | Promise<void>;
  /** The last sequence the read models hold (the metrics). */
  readonly readModelsSequence?: () => bigint;
  /** Stops the engine (commits what is queued) or the forwarding and the replica. */
  close(): Promise<void>;
}

export interface PlatformStores {
  readonly kind: "sqlite" | "postgres";
  readonly identity: IdentityStore;
  readonly mfa: MfaStore;
  readonly categories: CategoryStore;
  readonly marketCatalog: MarketCatalogStore;
  /** Markets a commit touched, undefined for "any" (the catalogue drops its cached views of them). */
  onMarketsChanged(listener: (marketIds: ReadonlySet<number> | undefined) => void): void;
  readonly depositAddresses: DepositAddressStore;
  /**
   * The deposit key the database is bound to, on PostgreSQL (several nodes must agree on it);
   * undefined on SQLite, whose one process keeps its key beside the file.
   */
  readonly depositKeyRegistry: DepositKeyRegistry | undefined;
  /** The gateway's durable nonces for its window (src/gateway/verifier.ts). */
  readonly gatewayNonces: NonceStore;
  /** A rate-limit store every API node shares (PostgreSQL); undefined: each process counts alone. */
  readonly sharedRateLimitStores: SharedRateLimitStores | undefined;
  readonly operations: OperationsQueries;
  readonly partnerRateLimits: PartnerRateLimits;
  readonly consoleQueries: ConsoleQueries;
  readonly legacyStores: LegacyStores;
  readonly priceSamples: PriceSampleStore;
  /** The chain wallet's store, opened only when a chain is configured. */
  openChainStore(): Promise<ChainStore>;
  /** Opens the exchange engine of this node (recovery runs here, before any listener starts). */
  openExchange(options: PlatformExchangeOptions): Promise<PlatformExchange>;
  /** Closes the database (after the exchange and every service that uses a store). */
  close(): Promise<void>;
}

/**
 * Every port on the one SQLite file; the engine is this process's own, with its projectors. The
 * ports that read tables the projectors write (the catalogue, the console's
 * queries, the legacy stores that read them) first bring the read models up to the last committed command, once
 * the exchange is open (exchange-host.ts: they are projected behind the journal).
 */
export function openSqlitePlatformStores(
  db: SqliteDatabase,
  options: { nowMs: () => number },
): PlatformStores {
  const marketCatalog = createSqliteMarketCatalog(db);
  const gatewayNonces = createSqliteGatewayNonceStore(db, { windowMs: nonceWindowMs, nowMs: options.nowMs });
  // Nothing is committed before the exchange opens, so there is nothing to catch up until then.
  let catchUp = () => {};
  const caughtUp = <Store extends object>(store: Store) => withCaughtUpReads(store, () => catchUp());
  const stores: PlatformStores = {
    kind: "sqlite",
    // A partner's commission rate is read by the commission projector: trades committed before a
    // change are projected (at the old rate) before the change is written.
    identity: withCaughtUpReads(createSqliteIdentityStore(db), () => catchUp(), ["updatePartnerSettings"]),
    mfa: createSqliteMfaStore(db),
    categories: createSqliteCategoryStore(db),
    marketCatalog: caughtUp(marketCatalog.store),
    onMarketsChanged: (listener) => marketCatalog.onMarketsChanged(listener),
    depositAddresses: createSqliteDepositAddressStore(db),
    depositKeyRegistry: undefined,
    gatewayNonces,
    sharedRateLimitStores: undefined,
    operations: createSqliteOperationsQueries(db),
    partnerRateLimits: createSqlitePartnerRateLimits(db),
    consoleQueries: caughtUp(createConsoleQueries(db)),
    legacyStores: caughtUpLegacyStores(createSqliteLegacyStores(db), caughtUp),
    priceSamples: openPriceSampleStore(db),
    async openChainStore() {
      // Loaded only with a chain configured.
      const { createSqliteChainStore } = await import("../store/sqlite/chain-store.js");
      return createSqliteChainStore(db);
    },
    async openExchange(options) {
      const host = await openExchangeHost({
        db,
        projectors: [marketCatalog.projector],
        userHistoryIndexLag: options.userHistoryIndexLag,
        journalArchiveDir: options.journalArchiveDir,
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        ...(options.projectionLimits === undefined ? {} : { projectionLimits: options.projectionLimits }),
        clock: options.clock,
        observer: options.observer,
        logger: options.logger,
        onFatal: options.onFatal,
      });
      catchUp = () => host.projection.catchUp();
      return {
        engine: host.engine,
        readModels: host.readModels,
        journalArchiver: host.journalArchiver,
        catchUpReadModels: () => catchUp(),
        readModelsSequence: () => host.projection.projectedSequence,
        close: () => host.close(),
      };
    },
    async close() {
      // The nonces' WAL descriptor is closed once its sync under way is done, before the file.
      await gatewayNonces.close();
      db.close();
    },
  };
  return stores;
}

/**
 * The legacy stores that read projected tables (notifications, commissions, bills, and the
 * applications' market titles) with their reads caught up; the nonces and the request queue read
 * only their own tables.
 */
function caughtUpLegacyStores(
  stores: LegacyStores,
  caughtUp: <Store extends object>(store: Store) => Store,
): LegacyStores {
  return {
    ...stores,
    notifications: caughtUp(stores.notifications),
    applications: caughtUp(stores.applications),
    commissions: caughtUp(stores.commissions),
    bills: caughtUp(stores.bills),
  };
}
