// The earlier interface's services, built once per platform from its dependencies: bearer tokens,
// the authorize nonce store, the durable request queue with its executor, and the merchant
// notifier. The legacy listener starts them when it is ready and stops them when it closes, before
// the engine closes, so an executing batch is always recorded against a running engine.

import type { Logger } from "pino";
import type { Rejection } from "../core/errors.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { IdentityService } from "../identity/service.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import type { LegacyNonceStore, LegacyRequestStore } from "../store/legacy.js";
import type { LegacyApplicationStore } from "../store/legacy-applications.js";
import type { LegacyBillQueries } from "../store/legacy-bills.js";
import type { NotificationReadModel } from "../store/legacy-notifications.js";
import type { LegacyStores } from "../store/legacy-stores.js";
import type { MerchantCommissionReadModel } from "../store/merchant-commissions.js";
import { LegacyNotifier, type NotifierPolicy } from "./notifier.js";
import { type DescribedRejection, LegacyRequestExecutor } from "./request-executor.js";
import { createLegacyTokens, deriveLegacyTokenKey, type LegacyTokens } from "./tokens.js";

export interface LegacyServices {
  readonly tokens: LegacyTokens;
  readonly nonces: LegacyNonceStore;
  readonly requests: LegacyRequestStore;
  readonly executor: LegacyRequestExecutor;
  readonly notifier: LegacyNotifier;
  /** Order results and settlements, per user (GET /api/user/notification/list). */
  readonly notifications: NotificationReadModel;
  /** Creators and their market applications. */
  readonly applications: LegacyApplicationStore;
  /** Merchant bills: commission by month, unclaimed payouts, users by marchantUserId. */
  readonly commissions: MerchantCommissionReadModel;
  readonly bills: LegacyBillQueries;
  start(): void;
  stop(): Promise<void>;
}

export interface LegacyServiceOptions {
  readonly describeRejection: (rejection: Rejection) => DescribedRejection;
  readonly notifierPolicy?: Partial<NotifierPolicy>;
}

/** What the legacy services need of the platform (PlatformDeps has all of it). */
export interface LegacyServiceDeps {
  readonly config: { readonly masterKey?: Buffer | undefined; readonly dataDir: string };
  readonly nowMs: () => number;
  readonly logger: Logger;
  readonly identity: IdentityService;
  readonly engine: ExchangeEngine;
  readonly exchangeReadModels: ExchangeReadModels;
  readonly legacyStores: LegacyStores;
}

export function createLegacyServices(deps: LegacyServiceDeps, options: LegacyServiceOptions): LegacyServices {
  const logger = deps.logger.child({ component: "legacy" });
  const { requests } = deps.legacyStores;
  const notifier = new LegacyNotifier({
    store: requests,
    nowMs: deps.nowMs,
    webhookOf: async (merchantId) => {
      const partner = await deps.identity.findPartner(merchantId);
      if (partner === undefined || partner.webhookUrl === null) return undefined;
      return { url: partner.webhookUrl, secret: deps.identity.webhookSecretOf(partner) };
    },
    ...(options.notifierPolicy === undefined ? {} : { policy: options.notifierPolicy }),
    onError: (error) => logger.warn({ err: error }, "merchant notification problem"),
  });
  const executor = new LegacyRequestExecutor({
    store: requests,
    exchange: {
      submit: (command) => deps.engine.submit(command),
      orderById: (orderId) => deps.exchangeReadModels.orderById(orderId),
    },
    describeRejection: options.describeRejection,
    nowMs: deps.nowMs,
    onCompleted: () => notifier.wake(),
    onError: (error) => logger.error({ err: error }, "legacy request executor problem"),
  });
  return {
    tokens: createLegacyTokens(deriveLegacyTokenKey(masterKeyOf(deps))),
    nonces: deps.legacyStores.nonces,
    requests,
    executor,
    notifier,
    notifications: deps.legacyStores.notifications,
    applications: deps.legacyStores.applications,
    commissions: deps.legacyStores.commissions,
    bills: deps.legacyStores.bills,
    start() {
      executor.start();
      notifier.start();
    },
    async stop() {
      await executor.stop();
      await notifier.stop();
    },
  };
}

/** The platform's master key: startPlatform puts the one it resolved (src/cli/master-key.ts) in deps.config. */
function masterKeyOf(deps: LegacyServiceDeps): Buffer {
  if (deps.config.masterKey === undefined)
    throw new Error("legacy services: the platform resolved no master key");
  return deps.config.masterKey;
}
