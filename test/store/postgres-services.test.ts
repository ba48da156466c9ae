// The service stores' contracts on PostgreSQL: the same suites the SQLite adapters pass, each store
// on a new database of one throwaway cluster (test/support/postgres-databases.ts).

import { after, it } from "node:test";
import { openPostgresIdentityStore } from "../../src/store/postgres/identity.js";
import { openPostgresMfaStore } from "../../src/store/postgres/mfa.js";
import { describeMfaStoreContract } from "../mfa/mfa-contract.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresDatabases } from "../support/postgres-databases.js";
import { describeIdentityStoreContract } from "./contracts/identity-contract.js";

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
}
