// DepositAddressStore on SQLite and PostgreSQL: the one contract (contracts/deposit-address-store-contract.ts).

import { openPostgresDepositAddressStore } from "../../src/store/postgres/deposit-addresses.js";
import { createSqliteDepositAddressStore } from "../../src/store/sqlite/deposit-addresses.js";
import { describeOnBothStores, postgresHarness, sqliteHarness } from "../support/port-harness.js";
import { describeDepositAddressStoreContract } from "./contracts/deposit-address-store-contract.js";

describeOnBothStores("DepositAddressStore", describeDepositAddressStoreContract, {
  sqlite: sqliteHarness(createSqliteDepositAddressStore),
  postgres: () => postgresHarness("deposit_addresses", openPostgresDepositAddressStore),
});
