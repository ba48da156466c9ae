// The service stores' contracts on SQLite (the suites: test/store/contracts/); the same suites run
// on PostgreSQL in test/store/postgres-services.test.ts.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import type { NonceStore } from "../../../src/store/gateway-nonces.js";
import type { PartnerRateLimits } from "../../../src/store/partner-rate-limits.js";
import { createSqliteCategoryStore } from "../../../src/store/sqlite/categories.js";
import { openDatabase, type SqliteDatabase } from "../../../src/store/sqlite/database.js";
import {
  createSqliteGatewayNonceStore,
  type SqliteGatewayNonceStore,
} from "../../../src/store/sqlite/gateway-nonces.js";
import { createSqliteIdentityStore } from "../../../src/store/sqlite/identity.js";
import { createSqliteLegacyApplicationStore } from "../../../src/store/sqlite/legacy-applications.js";
import { createSqliteLegacyNonceStore } from "../../../src/store/sqlite/legacy-nonces.js";
import { createSqliteLegacyRequestStore } from "../../../src/store/sqlite/legacy-requests.js";
import { createSqlitePartnerRateLimits } from "../../../src/store/sqlite/partner-rate-limits.js";
import { projectSqliteMarket } from "../../support/projected-market.js";
import { describeCategoryStoreContract } from "../contracts/category-contract.js";
import { describeGatewayNonceStoreContract } from "../contracts/gateway-nonce-contract.js";
import { describeLegacyApplicationStoreContract } from "../contracts/legacy-application-contract.js";
import { describeLegacyNonceStoreContract } from "../contracts/legacy-nonce-contract.js";
import { describeLegacyRequestStoreContract } from "../contracts/legacy-request-contract.js";
import {
  describePartnerRateLimitsContract,
  withTwoPartners,
} from "../contracts/partner-rate-limit-contract.js";

const memory = () => openDatabase({ path: ":memory:" });

describeCategoryStoreContract("sqlite", async () => createSqliteCategoryStore(memory()));
describeLegacyNonceStoreContract("sqlite", async () => createSqliteLegacyNonceStore(memory()));
describeLegacyApplicationStoreContract(
  "sqlite",
  async () => createSqliteLegacyApplicationStore(memory()),
  async (titles) => {
    const db = memory();
    const store = createSqliteLegacyApplicationStore(db);
    for (const title of titles) await projectSqliteMarket(db, title);
    return store;
  },
);
describeLegacyRequestStoreContract("sqlite", async () => createSqliteLegacyRequestStore(memory()));

const nonceDatabases = new WeakMap<NonceStore, SqliteDatabase>();
describeGatewayNonceStoreContract("sqlite", {
  async create(options, sameAs) {
    const db = sameAs === undefined ? memory() : nonceDatabases.get(sameAs)!;
    const store = createSqliteGatewayNonceStore(db, options);
    nonceDatabases.set(store, db);
    return store;
  },
});

// The same contract on a database file, where each batch commits at NORMAL and waits for the WAL's
// fdatasync off the event loop (":memory:" has no WAL to sync apart).
const fileNonceDirectory = mkdtempSync(join(tmpdir(), "predex-nonce-contract-"));
after(() => rmSync(fileNonceDirectory, { recursive: true, force: true }));
let fileNonceDatabases = 0;
const fileNonceStores = new WeakMap<NonceStore, SqliteDatabase>();
describeGatewayNonceStoreContract("sqlite file", {
  async create(options, sameAs) {
    let db: SqliteDatabase;
    if (sameAs === undefined) {
      fileNonceDatabases += 1;
      db = openDatabase({ path: join(fileNonceDirectory, `nonces-${fileNonceDatabases}.db`) });
    } else {
      // A restart: the first store's connection is closed and the file opened again.
      const before = fileNonceStores.get(sameAs)!;
      await (sameAs as SqliteGatewayNonceStore).close();
      before.close();
      db = openDatabase({ path: before.name });
    }
    const store = createSqliteGatewayNonceStore(db, options);
    fileNonceStores.set(store, db);
    return store;
  },
});

const limitDatabases = new WeakMap<PartnerRateLimits, SqliteDatabase>();
describePartnerRateLimitsContract("sqlite", {
  async create(sameAs) {
    let db = sameAs === undefined ? undefined : limitDatabases.get(sameAs);
    if (db === undefined) {
      db = memory();
      await withTwoPartners(createSqliteIdentityStore(db));
    }
    const limits = createSqlitePartnerRateLimits(db);
    limitDatabases.set(limits, db);
    return limits;
  },
});

it("SQLite partner rate limits answer from memory without a promise (the gateway asks on every request)", async () => {
  const db = memory();
  await withTwoPartners(createSqliteIdentityStore(db));
  const limits = createSqlitePartnerRateLimits(db);
  assert.equal(limits.of(1), undefined);
  await limits.set(1, 9);
  assert.equal(limits.of(1), 9);
});
