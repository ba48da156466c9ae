// PriceSampleStore on SQLite and PostgreSQL: the one contract (contracts/price-sample-contract.ts).

import { openPostgresPriceSampleStore } from "../../src/store/postgres/price-samples.js";
import { openPriceSampleStore } from "../../src/store/sqlite/price-samples.js";
import { describeOnBothStores, postgresHarness, sqliteHarness } from "../support/port-harness.js";
import { describePriceSampleStoreContract } from "./contracts/price-sample-contract.js";

describeOnBothStores("PriceSampleStore", describePriceSampleStoreContract, {
  sqlite: sqliteHarness(openPriceSampleStore),
  postgres: () => postgresHarness("price_samples", openPostgresPriceSampleStore),
});
