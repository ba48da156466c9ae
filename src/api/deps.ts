// The dependencies every API surface receives. Later parts of the platform (the engine, the event
// bus, read models) are added here, and route files reach them through `deps` or `request.server.platform`.

import type { Logger } from "pino";
import type { Catalogue } from "../catalog/catalogue.js";
import type { CategoryService } from "../catalog/categories.js";
import type { ChainWallet } from "../chain/chain-wallet.js";
import type { PlatformConfig } from "../config.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { JournalArchiver } from "../exchange/journal-archiver.js";
import type { GatewayVerifier } from "../gateway/verifier.js";
import type { AuthenticatedPartner, IdentityService } from "../identity/service.js";
import type { PlatformMetrics } from "../metrics/platform-metrics.js";
import type { MfaService } from "../mfa/service.js";
import type { ConsoleQueries } from "../store/console-queries.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import type { LegacyStores } from "../store/legacy-stores.js";
import type { OperationsQueries } from "../store/operations-queries.js";
import type { PartnerRateLimits } from "../store/partner-rate-limits.js";
import type { PriceSampleStore } from "../store/price-samples.js";
import type { SharedRateLimitStores } from "../store/shared-rate-limits.js";
import type { DepositAddresses } from "../wallet/deposit-addresses.js";
import type { WithdrawalRequests } from "../wallet/withdrawal-requests.js";
import type { SocketChannelHandler } from "./socket-channel.js";

export interface PlatformDeps {
  readonly config: PlatformConfig;
  /** Milliseconds since the epoch; the one clock of the API layer, replaceable in tests. */
  readonly nowMs: () => number;
  readonly logger: Logger;
  readonly identity: IdentityService;
  readonly gatewayVerifier: GatewayVerifier<AuthenticatedPartner>;
  /**
   * The signed host's WebSocket channels by path (`/socket/market-price`, …). The gateway and the
   * API key are checked before a handler runs; see src/api/partner/upgrades.ts.
   */
  readonly socketChannels: Map<string, SocketChannelHandler>;
  /** TOTP, email and recovery codes, and the tickets sensitive operations consume (src/mfa). */
  readonly mfa: MfaService;
  /** The exchange's single writer: submit commands, read committed state (src/exchange/exchange-host.ts). */
  readonly engine: ExchangeEngine;
  /** Orders, trades, ledger, positions, price points, deposits and the market catalogue. */
  readonly exchangeReadModels: ExchangeReadModels;
  /** Category nodes: the tree, market category names, the operator's edits (src/catalog/categories.ts). */
  readonly categories: CategoryService;
  /** Market list, detail, search, holders and live volume, with clicks and hotScore (src/catalog/catalogue.ts). */
  readonly catalogue: Catalogue;
  /** Per-user deposit addresses, and the address → user map of the chain watcher (src/wallet). */
  readonly depositAddresses: DepositAddresses;
  /** The deposit watcher and withdrawal sender (src/chain); undefined without a chain configured. */
  readonly chainWallet: ChainWallet | undefined;
  /** POST /withdraw/apply's checks, MFA ticket and RequestWithdrawal, in that order (src/wallet). */
  readonly withdrawalRequests: WithdrawalRequests;
  /** The Prometheus registry and HTTP instrumentation (src/metrics); undefined when built without metrics. */
  readonly metrics: PlatformMetrics | undefined;
  /** The readiness probe's database ping and the metrics' queue depth (src/store/sqlite/operations-queries.ts). */
  readonly operations: OperationsQueries;
  /** Partners' own requests-per-second limits on the signed host (src/api/partner/rate-limit.ts). */
  readonly partnerRateLimits: PartnerRateLimits;
  /** The web console's lists: public recent trades, the operator's partners, users, markets, deposits. */
  readonly consoleQueries: ConsoleQueries;
  /** The earlier interface's stores: nonces, request queue, notifications, applications, bills (src/store). */
  readonly legacyStores: LegacyStores;
  /** Per-minute price samples: the sampler writes them, GET /prices-history reads them (src/store). */
  readonly priceSamples: PriceSampleStore;
  /**
   * Rate-limit counters shared by every API node (the legacy 50 requests/second per merchant, the
   * partners' own limits); undefined counts in this process (src/api/shared/rate-limit-store.ts).
   */
  readonly sharedRateLimitStores?: SharedRateLimitStores | undefined;
  /** Moves journal entries older than the latest snapshot to the archive (src/exchange/journal-archiver.ts). */
  readonly journalArchiver?: JournalArchiver | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    /** The shared dependencies, for preHandlers (such as requireSession) that are not closures over deps. */
    platform: PlatformDeps;
  }
}
