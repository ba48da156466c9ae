// Starts the whole platform in one process (DESIGN §1): the store, the identity service, and the
// four listeners. Tests call startPlatform with port 0 and a temporary data dir.

import { mkdirSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Logger, pino } from "pino";
import { buildAdminApp } from "./api/admin/app.js";
import type { PlatformDeps } from "./api/deps.js";
import { buildLegacyApp } from "./api/legacy/app.js";
import { buildPartnerApp } from "./api/partner/app.js";
import { installUpgradeGate } from "./api/partner/upgrades.js";
import { buildPublicApp } from "./api/public/app.js";
import { type Realtime, type RealtimeLimits, startRealtime } from "./api/realtime.js";
import { setDocsServer } from "./api/shared/docs.js";
import type { TypeBoxApp } from "./api/shared/typebox-app.js";
import { Catalogue } from "./catalog/catalogue.js";
import { CategoryService } from "./catalog/categories.js";
import type { ChainWallet, ChainWalletOptions } from "./chain/chain-wallet.js";
import { type MasterKeyPolicy, resolveMasterKey } from "./cli/master-key.js";
import { defaultTopologyConfig } from "./config/topology-config.js";
import { ConfigError, type ListenerConfig, type PlatformConfig } from "./config.js";
import type { DeferredProjectionLimits } from "./engine/deferred-projection.js";
import type { EngineLimits } from "./engine/engine.js";
import { createGatewayVerifier } from "./gateway/verifier.js";
import { createSecretBox } from "./identity/secret-box.js";
import { loadOrCreateSecretFile, randomToken } from "./identity/secret-files.js";
import { IdentityService } from "./identity/service.js";
import { PlatformMetrics } from "./metrics/platform-metrics.js";
import { createMailer } from "./mfa/mailer.js";
import { createCodeHasher } from "./mfa/secrets.js";
import { MfaService } from "./mfa/service.js";
import { openDatabase, type SqliteDatabase } from "./store/sqlite/database.js";
import { startWalCheckpointer } from "./store/sqlite/wal-checkpointer.js";
import { openSqlitePlatformStores, type PlatformStores } from "./topology/platform-stores.js";
import { openPostgresPlatformStores } from "./topology/postgres-platform-stores.js";
import { claimClusterDepositKey } from "./wallet/cluster-deposit-key.js";
import {
  clusterDepositKeySource,
  type DepositKeySource,
  depositKeySource,
} from "./wallet/demo-deposit-key.js";
import { DepositAddresses } from "./wallet/deposit-addresses.js";
import { WithdrawalRequests } from "./wallet/withdrawal-requests.js";

export type SurfaceName = "gateway" | "public" | "legacy" | "admin";

/** How long a process whose engine failed keeps answering (the requests that met the failure) before it exits. */
export const fatalExitGraceMs = 500;

export interface PlatformOptions {
  /**
   * Where the master key may come from (src/cli/master-key.ts): a production `serve` passes
   * "external" (never created beside the database); the demo and tests keep the default.
   */
  readonly masterKeyPolicy?: MasterKeyPolicy;
  /** The API layer's clock; tests may move it. */
  readonly nowMs?: () => number;
  readonly logger?: Logger;
  /** Realtime limits and intervals; tests shorten the session check and sampling intervals. */
  readonly realtime?: Partial<RealtimeLimits>;
  /**
   * Ids a table may run past its user-history watermark before they are indexed by user (see
   * src/store/sqlite/user-history-index.ts); tests lower it so a few orders reach the bulk step.
   */
  readonly userHistoryIndexLag?: number;
  /** The chain watcher's hook on every credit (bench:chain measures latency with it). */
  readonly onChainDepositCredited?: ChainWalletOptions["onCredited"];
  /**
   * false builds the platform without metrics (no GET /metrics, no instrumentation at all); only the
   * benches use it, to measure what the instrumentation costs.
   */
  readonly metrics?: boolean;
  /** The engine's queue and batch limits; tests lower queueCommandsMax to see overload. */
  readonly engineLimits?: Partial<EngineLimits>;
  /**
   * How the read models follow the journal: on SQLite (src/engine/deferred-projection.ts), and on
   * PostgreSQL in the engine node this process runs (src/store/postgres/read-model-projection.ts;
   * each store's defaults fill what is not given; an "api" node runs none). Tests hold them back to
   * show that every read waits for them.
   */
  readonly readModelProjection?: Partial<DeferredProjectionLimits>;
  /**
   * "all" (the default): this process runs the engine too (on PostgreSQL, as one of the engine
   * nodes, src/topology/engine-node.ts). "api": only the listeners; commands go to the engine
   * leader (PostgreSQL only; `serve --role api`).
   */
  readonly role?: "all" | "api";
}

export interface Platform {
  /** Base URLs of the bound listeners, e.g. `http://127.0.0.1:8080`. */
  readonly addresses: Readonly<Record<SurfaceName, string>>;
  readonly adminToken: string;
  /** True when this start created the admin token (it is then printed once). */
  readonly adminTokenCreated: boolean;
  readonly deps: PlatformDeps;
  /** The SQLite database the adapters share (undefined on PostgreSQL); composition and tests only. */
  readonly db: SqliteDatabase | undefined;
  /**
   * Brings the read models up to the last committed command before `db` is read directly (SQLite
   * projects them behind the journal: src/engine/deferred-projection.ts); nothing to do on PostgreSQL.
   */
  catchUpReadModels(): void;
  /** Every port's adapter, on SQLite or PostgreSQL (src/topology/platform-stores.ts). */
  readonly stores: PlatformStores;
  readonly apps: Readonly<Record<SurfaceName, TypeBoxApp>>;
  /** The WebSocket channels and the price sampler (src/realtime). */
  readonly realtime: Realtime;
  /** Where deposit addresses come from: the operator's xpub, or the demo mnemonic (printed at start). */
  readonly depositKey: DepositKeySource;
  /** The chain wallet, when PREDEX_CHAIN_RPC_URL and PREDEX_USDT_CONTRACT are set. */
  readonly chainWallet: ChainWallet | undefined;
  close(): Promise<void>;
}

export const databaseFileName = "predex.db";
export { masterKeyFileName } from "./cli/master-key.js";
export const adminTokenFileName = "admin-token";
/** Without PREDEX_SMTP_URL, mail is appended here (one JSON message per line) inside the data dir. */
export const mailOutboxPath = ["mail", "outbox.jsonl"] as const;

/** Said loudly at start (log and console): without SMTP, no user receives a one-time code. */
export function localMailWarning(config: PlatformConfig): string {
  return `PREDEX_SMTP_URL is not set: one-time codes (MFA email) are NOT emailed, they are written to ${join(config.dataDir, ...mailOutboxPath)}. Set PREDEX_SMTP_URL=smtp://user:pass@host:587 (or smtps://) to send them.`;
}

export async function startPlatform(
  config: PlatformConfig,
  options: PlatformOptions = {},
): Promise<Platform> {
  const role = options.role ?? "all";
  if (role === "api" && config.databaseUrl === undefined) {
    throw new ConfigError(
      "serve --role api needs PREDEX_DATABASE_URL (postgres://…), shared with the engine nodes",
    );
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const logger = options.logger ?? pino({ level: config.logLevel });
  const nowMs = options.nowMs ?? Date.now;
  // Before the database: a production start without a key refuses before it creates any file.
  const resolvedKey = resolveMasterKey(config, options.masterKeyPolicy ?? "create-in-data-dir");
  for (const warning of resolvedKey.warnings) logger.warn(warning);
  const masterKey = resolvedKey.key;
  if (config.smtpUrl === undefined) logger.warn(localMailWarning(config));
  const db =
    config.databaseUrl === undefined
      ? openDatabase({ path: join(config.dataDir, databaseFileName) })
      : undefined;
  const stores =
    db !== undefined
      ? openSqlitePlatformStores(db, { nowMs })
      : await openPostgresPlatformStores({
          url: config.databaseUrl!,
          role,
          masterKey,
          logger,
          nowMs,
          topology: config.topology ?? defaultTopologyConfig(),
        });
  // WAL checkpoints run on a worker thread, not in whichever engine commit crosses the threshold.
  const checkpointer =
    db === undefined
      ? undefined
      : startWalCheckpointer(db, join(config.dataDir, databaseFileName), {
          onError: (error) =>
            logger.warn({ err: error }, "WAL checkpointer problem; the connection checkpoints itself"),
        });
  const metrics = options.metrics === false ? undefined : new PlatformMetrics();
  // Several nodes share a PostgreSQL database: each derives deposit addresses from the key the
  // database records (the xpub, or the demo key of the shared master key), or does not start —
  // checked before recovery, so a misconfigured node is refused at once (src/wallet/cluster-deposit-key.ts).
  const depositKey =
    stores.kind === "postgres"
      ? clusterDepositKeySource(config.chain.depositXpub, () => masterKey)
      : depositKeySource(config.chain.depositXpub, config.dataDir);
  if (stores.depositKeyRegistry !== undefined) {
    try {
      await claimClusterDepositKey(stores.depositKeyRegistry, depositKey, nowMs());
    } catch (error) {
      await checkpointer?.stop();
      await stores.close();
      throw error;
    }
  }

  const adminTokenFile =
    config.adminToken === undefined
      ? loadOrCreateSecretFile(join(config.dataDir, adminTokenFileName), () => randomToken(32))
      : undefined;
  const adminToken = config.adminToken ?? adminTokenFile!.value;

  const identity = new IdentityService({
    store: stores.identity,
    secretBox: createSecretBox(masterKey),
    nowMs,
    sessionTtlSeconds: config.sessionTtlSeconds,
  });
  const mfa = new MfaService({
    store: stores.mfa,
    secretBox: createSecretBox(masterKey),
    codeHasher: createCodeHasher(masterKey),
    mailer: createMailer({
      smtpUrl: config.smtpUrl,
      outboxPath: join(config.dataDir, ...mailOutboxPath),
      from: config.mailFrom,
    }),
    users: identity,
  });
  // The engine's recovery (snapshot + journal, or an API node's replica) runs here, before any
  // listener takes a request.
  const exchange = await stores.openExchange({
    userHistoryIndexLag: options.userHistoryIndexLag,
    journalArchiveDir: config.journalArchiveDir,
    limits: options.engineLimits,
    projectionLimits: options.readModelProjection,
    clock: nowMs,
    observer: metrics?.engineObserver,
    logger: logger.child({ component: "exchange" }),
    onFatal: (error) => {
      // Memory may be ahead of disk: the only safe move is to stop and recover from the journal.
      // The requests that met the failure are answered first (their outcome is unknown, 504/2001,
      // or nothing was done, 502/2002): the engine takes nothing more meanwhile.
      logger.fatal({ err: error }, "the exchange engine stopped; exiting so recovery can run");
      setTimeout(() => process.exit(70), fatalExitGraceMs);
    },
  });
  const categories = new CategoryService({ store: stores.categories, nowMs });
  const catalogue = new Catalogue({
    engine: exchange.engine,
    exchangeReadModels: exchange.readModels,
    store: stores.marketCatalog,
    categories,
    users: identity,
    nowMs,
    onMarketsChanged: (listener) => stores.onMarketsChanged(listener),
    onError: (error) => logger.warn({ err: error }, "catalogue: writing clicks failed"),
    catchUpReadModels: exchange.catchUpReadModels,
  });
  const depositAddresses = new DepositAddresses(depositKey.accountKey, stores.depositAddresses);
  let chainWallet: ChainWallet | undefined;
  if (config.chain.network !== undefined) {
    try {
      // Loaded only with a chain configured: viem and the wallet stay out of a plain start.
      const { startChainWallet } = await import("./chain/chain-wallet.js");
      chainWallet = await startChainWallet({
        network: config.chain.network,
        withdrawalKeyFile: config.chain.withdrawalKeyFile,
        store: await stores.openChainStore(),
        engine: exchange.engine,
        readModels: exchange.readModels,
        addresses: depositAddresses,
        nowMs,
        logger,
        ...(options.onChainDepositCredited === undefined
          ? {}
          : { onCredited: options.onChainDepositCredited }),
      });
    } catch (error) {
      await exchange.close();
      await catalogue.close();
      await checkpointer?.stop();
      await stores.close();
      throw error;
    }
  }
  const deps: PlatformDeps = {
    // Every part of the platform reads the one master key resolved above.
    config: { ...config, masterKey },
    nowMs,
    logger,
    identity,
    gatewayVerifier: createGatewayVerifier({
      lookupAppKey: (appKey) => identity.lookupAppKey(appKey),
      nowMs,
      // Per partner and durable for the window: a restart still refuses a captured request.
      nonces: stores.gatewayNonces,
    }),
    mfa,
    socketChannels: new Map(),
    engine: exchange.engine,
    exchangeReadModels: exchange.readModels,
    categories,
    catalogue,
    depositAddresses,
    chainWallet,
    withdrawalRequests: new WithdrawalRequests({
      engine: exchange.engine,
      mfa,
      nowMs,
      // A withdrawal must be payable exactly in the token's units (USDT: 6 decimals).
      ...(chainWallet === undefined ? {} : { amountDecimalsMax: Math.min(chainWallet.decimals, 8) }),
    }),
    metrics,
    operations: stores.operations,
    partnerRateLimits: stores.partnerRateLimits,
    consoleQueries: stores.consoleQueries,
    legacyStores: stores.legacyStores,
    priceSamples: stores.priceSamples,
    sharedRateLimitStores: stores.sharedRateLimitStores,
    journalArchiver: exchange.journalArchiver,
  };

  const https =
    config.tls === undefined
      ? undefined
      : { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) };
  const httpsOption = https === undefined ? {} : { https };
  const apps: Record<SurfaceName, TypeBoxApp> = {
    gateway: await buildPartnerApp(deps, httpsOption),
    public: await buildPublicApp(deps, httpsOption),
    legacy: await buildLegacyApp(deps, httpsOption),
    admin: await buildAdminApp(deps, adminToken),
  };
  // Every WebSocket upgrade of the signed host passes the gateway before any channel sees it.
  installUpgradeGate(apps.gateway.server, deps);
  const realtime = await startRealtime(deps, { public: apps.public.server }, options.realtime);
  metrics?.attach({
    engine: exchange.engine,
    journal: { forks: exchange.journalForks ?? (() => 0) },
    ...(exchange.readModelsSequence === undefined
      ? {}
      : { readModels: { projectedSequence: exchange.readModelsSequence } }),
    ...(stores.operations.replication === undefined
      ? {}
      : { database: { replication: () => stores.operations.replication!() } }),
    sockets: realtime.hub.socketStats,
    legacy: {
      webhookStats: apps.legacy.legacyServices.notifier.stats,
      requestsPending: () => deps.operations.legacyRequestsPending(),
    },
  });
  const close = async () => {
    // Sockets first: an upgraded connection would otherwise hold its listener's close open.
    realtime.close();
    await Promise.allSettled(Object.values(apps).map((app) => app.close()));
    // Before the engine: a round in flight may still submit a credit or a completion.
    await chainWallet?.close();
    // After the listeners (no new commands) and before the database (the engine commits queued work).
    await exchange.close();
    await catalogue.close();
    await checkpointer?.stop();
    await stores.close();
  };
  try {
    const scheme = https === undefined ? "http" : "https";
    const backlog = config.listenerLimits.listenBacklogConnections;
    const addresses = {
      gateway: await listen(apps.gateway, config.gateway, scheme, backlog),
      public: await listen(apps.public, config.public, scheme, backlog),
      legacy: await listen(apps.legacy, config.legacy, scheme, backlog),
      admin: await listen(apps.admin, config.admin, "http", backlog),
    };
    return {
      addresses,
      adminToken,
      adminTokenCreated: adminTokenFile?.created ?? false,
      deps,
      db,
      catchUpReadModels: () => exchange.catchUpReadModels?.(),
      stores,
      apps,
      realtime,
      depositKey,
      chainWallet,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function listen(
  app: TypeBoxApp,
  listener: ListenerConfig,
  scheme: "http" | "https",
  backlog: number,
): Promise<string> {
  // A burst beyond the backlog is dropped and reset by the kernel before the engine can refuse it.
  await app.listen({ host: listener.host, port: listener.port, backlog });
  const { address, port } = app.server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  const bound = `${scheme}://${host}:${port}`;
  // In the turn the listen completes, before any request is read: the document is generated once,
  // on its first request, and must name the server from the start.
  setDocsServer(app, listener.baseUrl ?? bound);
  return bound;
}
