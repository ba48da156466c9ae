// Every port on PostgreSQL (PREDEX_DATABASE_URL), for an API node (`serve --role api`) or an
// all-in-one node on PostgreSQL (`serve`). The exchange engine of such a node is always a forwarding
// engine (src/cluster/forwarding-engine.ts): commands go to whichever engine node leads, reads run
// on a replica that follows the committed journal. An all-in-one node also starts an engine node in
// the same process (src/topology/engine-node.ts), which follows as a standby and leads when it gets
// the lock; its API half forwards to the leader like any API node (to itself when it leads), so any
// number of all-in-one nodes run side by side.

import type { Logger } from "pino";
import { deriveCommandKey } from "../cluster/command-auth.js";
import { ForwardingEngine } from "../cluster/forwarding-engine.js";
import type { TopologyConfig } from "../config/topology-config.js";
import {
  assertInvariants,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../core/exchange.js";
import { startJournalArchiver } from "../exchange/journal-archiver.js";
import { nonceWindowMs } from "../gateway/verifier.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import type { LegacyStores } from "../store/legacy-stores.js";
import { openPostgresCategoryStore } from "../store/postgres/categories.js";
import { openPostgresChainStore } from "../store/postgres/chain-store.js";
import { openPostgresConsoleQueries } from "../store/postgres/console-queries.js";
import { openPostgresPool, type PostgresPool } from "../store/postgres/database.js";
import {
  openPostgresDepositAddressStore,
  openPostgresDepositKeyRegistry,
} from "../store/postgres/deposit-addresses.js";
import { openPostgresEngineCluster } from "../store/postgres/engine-cluster.js";
import { applyPostgresExchangeMigrations } from "../store/postgres/exchange-projectors.js";
import { openPostgresExchangeReadModels } from "../store/postgres/exchange-read-models.js";
import { openGatewayNoncePool, openPostgresGatewayNonceStore } from "../store/postgres/gateway-nonces.js";
import { openPostgresIdentityStore } from "../store/postgres/identity.js";
import { latestSnapshotSequence, PostgresJournalArchive } from "../store/postgres/journal-archive.js";
import { openPostgresLegacyApplicationStore } from "../store/postgres/legacy-applications.js";
import { openPostgresLegacyBillQueries } from "../store/postgres/legacy-bills.js";
import { openPostgresLegacyNonceStore } from "../store/postgres/legacy-nonces.js";
import { openPostgresNotificationReadModel } from "../store/postgres/legacy-notifications.js";
import { openPostgresLegacyRequestStore } from "../store/postgres/legacy-requests.js";
import { openPostgresMarketCatalog } from "../store/postgres/market-catalog.js";
import { openPostgresMerchantCommissions } from "../store/postgres/merchant-commissions.js";
import { openPostgresMfaStore } from "../store/postgres/mfa.js";
import { openPostgresOperationsQueries } from "../store/postgres/operations-queries.js";
import { openPostgresPartnerRateLimits } from "../store/postgres/partner-rate-limits.js";
import { openPostgresPriceSampleStore } from "../store/postgres/price-samples.js";
import { openPostgresRateLimitStores } from "../store/postgres/rate-limit-store.js";
import {
  ReadModelPositionWatcher,
  readModelPosition,
  withProjectedReads,
} from "../store/postgres/read-model-projection.js";
import { reportReplicationAtStart } from "../store/postgres/replication-status.js";
import {
  openPostgresSessionCache,
  type PostgresSessionCache,
} from "../store/postgres/session-revocations.js";
import { type EngineNode, startEngineNode } from "./engine-node.js";
import type { PlatformExchange, PlatformExchangeOptions, PlatformStores } from "./platform-stores.js";
import { openPostgresEngineProjectors } from "./postgres-projectors.js";

export interface PostgresPlatformStoresOptions {
  readonly url: string;
  readonly role: "all" | "api";
  readonly masterKey: Buffer;
  readonly logger: Logger;
  readonly nowMs: () => number;
  /** From the platform's configuration (src/config.ts), as every setting. */
  readonly topology: TopologyConfig;
}

export async function openPostgresPlatformStores(
  options: PostgresPlatformStoresOptions,
): Promise<PlatformStores> {
  const pool = openApiNodePool(options.url);
  const noncePool = openGatewayNoncePool({ url: options.url, applicationName: apiNodeApplicationName() });
  let sessions: PostgresSessionCache | undefined;
  let positions: ReadModelPositionWatcher | undefined;
  try {
    // Identity first: several stores' tables refer to users and partners.
    // Session lookups kept in memory while this node hears every node's revocations (LISTEN, see
    // session-revocations.ts), for a second at most.
    sessions = await openPostgresSessionCache(pool, await openPostgresIdentityStore(pool), {
      nowMs: options.nowMs,
      onListenError: (error) =>
        options.logger.warn({ err: error }, "sessions: revocation listener reconnecting"),
    });
    const identity = sessions.identity;
    // Without synchronous replication a failover of the database may lose acknowledged orders:
    // said at every start (and on /readyz and /metrics).
    await reportReplicationAtStart(pool, options.logger);
    // The tables the engine projects into, so an API node may start before any engine node.
    await applyPostgresExchangeMigrations(pool);
    const marketCatalog = await openPostgresMarketCatalog(pool, {
      onListenError: (error) =>
        options.logger.warn({ err: error }, "catalogue: change listener reconnecting"),
    });
    // The read models follow the journal (the engine leader projects them in steps: src/store/
    // postgres/read-model-projection.ts). Every read of a projected table first waits until they
    // hold what this node's replica holds; the replica holds every command this node has answered,
    // so a read after an answer sees it. Nothing to wait for until the exchange is open.
    const watcher = await ReadModelPositionWatcher.start({
      pool,
      onListenError: (error) =>
        options.logger.warn({ err: error }, "read models: position listener reconnecting"),
    });
    positions = watcher;
    let replicaSequence = () => 0n;
    // The markets the entries this node's replica holds touched, told to the catalogue's listeners
    // once the read models hold those entries (before any read waiting for them goes on): the
    // catalogue's cached views never miss a projected change, whichever NOTIFY arrives first.
    const catalogueListeners: ((marketIds: ReadonlySet<number> | undefined) => void)[] = [];
    let touchedWaiting: { sequence: bigint; marketIds: ReadonlySet<number> }[] = [];
    const tellTouched = (position: bigint) => {
      if (touchedWaiting.length === 0 || touchedWaiting[0]!.sequence > position) return;
      const told = new Set<number>();
      while (touchedWaiting.length > 0 && touchedWaiting[0]!.sequence <= position) {
        for (const marketId of touchedWaiting.shift()!.marketIds) told.add(marketId);
      }
      for (const listener of catalogueListeners) listener(told);
    };
    watcher.onPosition(tellTouched);
    const followReplica = (exchange: PlatformExchange) => {
      replicaSequence = () => exchange.engine.committedSequence;
      exchange.engine.onCommitted((entries) => {
        const marketIds = new Set<number>();
        for (const entry of entries) {
          for (const event of entry.events) {
            if ("marketId" in event && typeof event.marketId === "number") marketIds.add(event.marketId);
          }
        }
        if (marketIds.size === 0) return;
        touchedWaiting.push({ sequence: entries.at(-1)!.sequence, marketIds });
        tellTouched(watcher.sequence);
      });
      exchange.engine.onReloaded?.(() => {
        touchedWaiting = [];
        for (const listener of catalogueListeners) listener(undefined);
      });
    };
    const projected = <Store extends object>(store: Store) =>
      withProjectedReads(store, () => watcher.waitFor(replicaSequence()));
    const readModels = projected(await openPostgresExchangeReadModels(pool));
    const requests = await openPostgresLegacyRequestStore(pool);
    const legacyStores: LegacyStores = {
      nonces: await openPostgresLegacyNonceStore(pool),
      requests,
      notifications: projected(await openPostgresNotificationReadModel(pool)),
      applications: projected(await openPostgresLegacyApplicationStore(pool)),
      commissions: projected(await openPostgresMerchantCommissions(pool)),
      bills: projected(await openPostgresLegacyBillQueries(pool)),
    };
    return {
      kind: "postgres",
      // A partner's commission rate is read by the commission projector: trades this node has
      // answered are projected (at the old rate) before a change is written.
      identity: withProjectedReads(identity, () => watcher.waitFor(replicaSequence()), [
        "updatePartnerSettings",
      ]),
      mfa: await openPostgresMfaStore(pool),
      categories: await openPostgresCategoryStore(pool),
      marketCatalog: projected(marketCatalog.store),
      onMarketsChanged: (listener) => {
        marketCatalog.onMarketsChanged(listener);
        catalogueListeners.push(listener);
      },
      depositAddresses: await openPostgresDepositAddressStore(pool),
      depositKeyRegistry: await openPostgresDepositKeyRegistry(pool),
      gatewayNonces: await openPostgresGatewayNonceStore(pool, {
        windowMs: nonceWindowMs,
        statementPool: noncePool,
        nowMs: options.nowMs,
      }),
      sharedRateLimitStores: await openPostgresRateLimitStores(pool),
      operations: await openPostgresOperationsQueries(pool),
      partnerRateLimits: await openPostgresPartnerRateLimits(pool),
      consoleQueries: projected(await openPostgresConsoleQueries(pool)),
      legacyStores,
      priceSamples: await openPostgresPriceSampleStore(pool),
      openChainStore: () => openPostgresChainStore(pool),
      openExchange: async (exchange) => {
        const opened = await openPostgresExchange(pool, {
          ...options,
          readModels,
          exchange,
          positions: watcher,
        });
        followReplica(opened);
        return {
          ...opened,
          catchUpReadModels: () => watcher.waitFor(replicaSequence()),
        };
      },
      async close() {
        await watcher.close();
        await marketCatalog.close();
        await sessions?.close();
        await noncePool.end();
        await pool.end();
      },
    };
  } catch (error) {
    await positions?.close();
    await sessions?.close();
    await noncePool.end();
    await pool.end();
    throw error;
  }
}

/**
 * The exchange of a PostgreSQL node: a forwarding engine on a replica of the journal, and for an
 * all-in-one node an engine node beside it.
 */
export async function openPostgresExchange(
  pool: PostgresPool,
  options: PostgresPlatformStoresOptions & {
    readonly readModels: ExchangeReadModels;
    readonly exchange: PlatformExchangeOptions;
    /** Where the read models stand (this node's own leader's steps are handed to it). */
    readonly positions: ReadModelPositionWatcher;
  },
): Promise<PlatformExchange> {
  const topology = options.topology;
  let engineNode: EngineNode | undefined;
  if (options.role === "all") {
    engineNode = await startEngineNode({
      databaseUrl: options.url,
      topology,
      masterKey: options.masterKey,
      logger: options.exchange.logger,
      openProjectors: openPostgresEngineProjectors,
      clock: options.exchange.clock,
      ...(options.exchange.limits === undefined ? {} : { limits: options.exchange.limits }),
      // The platform's read-model steps (tests hold them back) reach every lead of this node,
      // a takeover's included (src/store/postgres/read-model-projection.ts).
      ...(options.exchange.projectionLimits === undefined
        ? {}
        : { projectionLimits: options.exchange.projectionLimits }),
      ...(options.exchange.observer === undefined ? {} : { observer: options.exchange.observer }),
      onFatal: (reason) => options.exchange.onFatal(reason),
    });
    engineNode.onReadModelsProjected((sequence) => options.positions.observe(sequence));
  }
  const applicationName = `predex-api:${process.pid}`;
  const cluster = await openPostgresEngineCluster<ExchangeCommand, ExchangeEvent>(pool, {
    url: options.url,
    applicationName,
  });
  const engine = await ForwardingEngine.start<ExchangeState, ExchangeCommand, ExchangeEvent>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    cluster,
    key: deriveCommandKey(options.masterKey),
    logger: options.exchange.logger.child({ component: "forwarding" }),
    failoverDeadlineMs: topology.failoverDeadlineMs,
    // A replica reloaded after falling behind the archive is checked before it serves (as a takeover is).
    assertState: assertInvariants,
    ...(engineNode === undefined ? {} : { local: engineNode.localCommands }),
  });
  // The leader's engine node archives every minute; any node runs it on request (POST
  // /admin/journal/archive): the archive is in the database and bounds itself by its latest
  // snapshot (src/store/postgres/journal-archive.ts).
  const journalArchiver = startJournalArchiver({
    engine,
    // Nor past what the read models hold: the next leader projects from the journal.
    snapshotSequence: async () => {
      const [snapshot, projected] = await Promise.all([
        latestSnapshotSequence(pool),
        readModelPosition(pool),
      ]);
      if (projected < snapshot) return projected;
      return snapshot;
    },
    store: cluster.journal,
    archive: new PostgresJournalArchive<ExchangeCommand, ExchangeEvent>(pool),
    logger: options.exchange.logger,
    scheduled: false,
  });
  return {
    engine,
    readModels: options.readModels,
    journalArchiver,
    journalForks: () => engine.stats.forks + (engineNode?.journalForks ?? 0),
    readModelsSequence: () => options.positions.sequence,
    async close() {
      await journalArchiver.stop();
      await engine.close();
      await engineNode?.close();
    },
  };
}

/** The pool of an API node's ports: its sessions are named, so an operator sees whose they are. */
export function openApiNodePool(url: string): PostgresPool {
  return openPostgresPool({ url, applicationName: apiNodeApplicationName(), poolConnectionsMax: 20 });
}

/** What an API node's sessions are named in pg_stat_activity. */
function apiNodeApplicationName(): string {
  return `predex-api:${process.pid}`;
}
