// The stores the earlier interface's services need (src/legacy/services.ts), as one set of ports.
// Composition (src/server.ts) builds them from an adapter (src/store/sqlite/legacy-stores.ts) and
// hands them over in PlatformDeps; no service or route opens a store itself.

import type { LegacyNonceStore, LegacyRequestStore } from "./legacy.js";
import type { LegacyApplicationStore } from "./legacy-applications.js";
import type { LegacyBillQueries } from "./legacy-bills.js";
import type { NotificationReadModel } from "./legacy-notifications.js";
import type { MerchantCommissionReadModel } from "./merchant-commissions.js";

export interface LegacyStores {
  readonly nonces: LegacyNonceStore;
  readonly requests: LegacyRequestStore;
  /** Order results and settlements, per user (GET /api/user/notification/list). */
  readonly notifications: NotificationReadModel;
  /** Creators and their market applications. */
  readonly applications: LegacyApplicationStore;
  /** Merchant bills: commission by month, unclaimed payouts, users by marchantUserId. */
  readonly commissions: MerchantCommissionReadModel;
  readonly bills: LegacyBillQueries;
}
