// The IdentityStore contract on SQLite (the suite itself: test/store/contracts/identity-contract.ts).

import { openDatabase } from "../../../src/store/sqlite/database.js";
import { createSqliteIdentityStore } from "../../../src/store/sqlite/identity.js";
import { describeIdentityStoreContract } from "../contracts/identity-contract.js";

describeIdentityStoreContract("sqlite", {
  async create() {
    return createSqliteIdentityStore(openDatabase({ path: ":memory:" }));
  },
});
