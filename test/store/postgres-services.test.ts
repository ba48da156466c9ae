// The service stores' contracts on PostgreSQL: the same suites the SQLite adapters pass, each store
// on a new database of one throwaway cluster (test/support/postgres-databases.ts).

import { after, it } from "node:test";
import type { NonceStore } from "../../src/store/gateway-nonces.js";
import type { PartnerRateLimits } from "../../src/store/partner-rate-limits.js";
import { openPostgresCategoryStore } from "../../src/store/postgres/categories.js";
import { openPostgresGatewayNonceStore } from "../../src/store/postgres/gateway-nonces.js";
import { openPostgresIdentityStore } from "../../src/store/postgres/identity.js";
import { openPostgresLegacyApplicationStore } from "../../src/store/postgres/legacy-applications.js";
import { openPostgresLegacyNonceStore } from "../../src/store/postgres/legacy-nonces.js";
import { openPostgresLegacyRequestStore } from "../../src/store/postgres/legacy-requests.js";
import { openPostgresMfaStore } from "../../src/store/postgres/mfa.js";
import { openPostgresPartnerRateLimits } from "../../src/store/postgres/partner-rate-limits.js";
import { describeMfaStoreContract } from "../mfa/mfa-contract.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresDatabases } from "../support/postgres-databases.js";
import { describeCategoryStoreContract } from "./contracts/category-contract.js";
import { describeGatewayNonceStoreContract } from "./contracts/gateway-nonce-contract.js";
import { describeIdentityStoreContract } from "./contracts/identity-contract.js";
import { describeLegacyApplicationStoreContract } from "./contracts/legacy-application-contract.js";
import { describeLegacyNonceStoreContract } from "./contracts/legacy-nonce-contract.js";
import { describeLegacyRequestStoreContract } from "./contracts/legacy-request-contract.js";
import {
  describePartnerRateLimitsContract,
  withTwoPartners,
} from "./contracts/partner-rate-limit-contract.js";

const skipReason = postgresSkipReason();

if (skipReason !== undefined) {
  it("service store contracts: postgres", { skip: skipReason }, () => {});
} else {
  const databases = postgresDatabases("services");
  after(() => databases.close());

  describeIdentityStoreContract("postgres", {
    async create() {
      return openPostgresIdentityStore(await databases.freshPool());
    },
  });

  describeMfaStoreContract("postgres", async () => {
    const pool = await databases.freshPool();
    const identity = await openPostgresIdentityStore(pool);
    const mfa = await openPostgresMfaStore(pool);
    return {
      identity,
      mfa,
      async dumpAtRest() {
        const accounts = await pool.query("SELECT * FROM mfa_accounts");
        const codes = await pool.query("SELECT * FROM mfa_recovery_codes");
        return JSON.stringify([accounts.rows, codes.rows], (_, value) =>
          typeof value === "bigint" ? value.toString() : value,
        );
      },
    };
  });

  describeCategoryStoreContract("postgres", async () =>
    openPostgresCategoryStore(await databases.freshPool()),
  );
  describeLegacyNonceStoreContract("postgres", async () =>
    openPostgresLegacyNonceStore(await databases.freshPool()),
  );
  describeLegacyApplicationStoreContract("postgres", async () =>
    openPostgresLegacyApplicationStore(await databases.freshPool()),
  );
  describeLegacyRequestStoreContract("postgres", async () =>
    openPostgresLegacyRequestStore(await databases.freshPool()),
  );

  const nonceUrls = new WeakMap<NonceStore, string>();
  describeGatewayNonceStoreContract("postgres", {
    async create(options, sameAs) {
      // A restart is a new pool (a new process) on the same database.
      const url = sameAs === undefined ? await databases.fresh() : nonceUrls.get(sameAs)!;
      const store = await openPostgresGatewayNonceStore(databases.pool(url), options);
      nonceUrls.set(store, url);
      return store;
    },
  });

  const limitUrls = new WeakMap<PartnerRateLimits, string>();
  describePartnerRateLimitsContract("postgres", {
    async create(sameAs) {
      let url = sameAs === undefined ? undefined : limitUrls.get(sameAs);
      if (url === undefined) {
        url = await databases.fresh();
        await withTwoPartners(await openPostgresIdentityStore(databases.pool(url)));
      }
      const limits = await openPostgresPartnerRateLimits(databases.pool(url));
      limitUrls.set(limits, url);
      return limits;
    },
  });
}
