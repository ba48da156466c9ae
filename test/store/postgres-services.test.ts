// The service stores' contracts on PostgreSQL: the same suites the SQLite adapters pass, each store
// on a new database of one throwaway cluster (test/support/postgres-databases.ts).

import { after, it } from "node:test";
import { openPostgresIdentityStore } from "../../src/store/postgres/identity.js";
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
}
