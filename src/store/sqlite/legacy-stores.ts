// The legacy services' stores on SQLite (port: src/store/legacy-stores.ts), built once per platform.

import type { LegacyStores } from "../legacy-stores.js";
import type { SqliteDatabase } from "./database.js";
import { createSqliteLegacyApplicationStore } from "./legacy-applications.js";
import { createSqliteLegacyBillQueries } from "./legacy-bills.js";
import { createSqliteLegacyNonceStore } from "./legacy-nonces.js";
import { createSqliteLegacyNotifications } from "./legacy-notifications.js";
import { createSqliteLegacyRequestStore } from "./legacy-requests.js";
import { createSqliteMerchantCommissions } from "./merchant-commissions.js";

export function createSqliteLegacyStores(db: SqliteDatabase): LegacyStores {
  const requests = createSqliteLegacyRequestStore(db);
  return {
    nonces: createSqliteLegacyNonceStore(db),
    requests,
    // After the request store: the list reads its table.
    notifications: createSqliteLegacyNotifications(db),
    applications: createSqliteLegacyApplicationStore(db),
    commissions: createSqliteMerchantCommissions(db),
    bills: createSqliteLegacyBillQueries(db),
  };
}
