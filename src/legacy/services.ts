// The earlier interface's services, built once per platform from its dependencies: bearer tokens,
// the authorize nonce store, the durable request queue with its executor, and the merchant
// notifier. The legacy listener starts them when it is ready and stops them when it closes, before
// the engine closes, so an executing batch is always recorded against a running engine.

import type { PlatformDeps } from "../api/deps.js";
import type { Rejection } from "../core/errors.js";
import type { LegacyNonceStore, LegacyRequestStore } from "../store/legacy.js";
import {
  createSqliteLegacyApplicationStore,
  type LegacyApplicationStore,
} from "../store/sqlite/legacy-applications.js";
import { createSqliteLegacyBillQueries, type LegacyBillQueries } from "../store/sqlite/legacy-bills.js";
import { createSqliteLegacyNonceStore } from "../store/sqlite/legacy-nonces.js";
import { createSqliteLegacyNotifications } from "../store/sqlite/legacy-notifications.js";
import { createSqliteLegacyRequestStore } from "../store/sqlite/legacy-requests.js";
import {
  createSqliteMerchantCommissions,
  type MerchantCommissionReadModel,
} from "../store/sqlite/merchant-commissions.js";
import type { NotificationReadModel } from "./notifications.js";
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

export function createLegacyServices(deps: PlatformDeps, options: LegacyServiceOptions): LegacyServices {
  const logger = deps.logger.child({ component: "legacy" });
  const requests = createSqliteLegacyRequestStore(deps.db);
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
    nonces: createSqliteLegacyNonceStore(deps.db),
    requests,
    executor,
    notifier,
    // After the request store: the list reads its table.
    notifications: createSqliteLegacyNotifications(deps.db),
    applications: createSqliteLegacyApplicationStore(deps.db),
    commissions: createSqliteMerchantCommissions(deps.db),
    bills: createSqliteLegacyBillQueries(deps.db),
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

/** The platform's master key: startPlatform puts the one it resolved (src/identity/master-key.ts) in deps.config. */
function masterKeyOf(deps: PlatformDeps): Buffer {
  if (deps.config.masterKey === undefined)
    throw new Error("legacy services: the platform resolved no master key");
  return deps.config.masterKey;
}
