// The deposit key a PostgreSQL database is bound to (src/store/deposit-key-registry.ts): the first
// claim records its key and every later claim answers it; two nodes claiming at once agree on one;
// replace is the operator's change and answers the key it replaced.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { DepositKeyRecord } from "../../src/store/deposit-key-registry.js";
import { openPostgresDepositKeyRegistry } from "../../src/store/postgres/deposit-addresses.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresDatabases } from "../support/postgres-databases.js";

const skipReason = postgresSkipReason();

const record = (keyId: string, source: DepositKeyRecord["source"] = "xpub"): DepositKeyRecord => ({
  source,
  keyId,
  accountXpub: `xpub-of-${keyId}`,
  recordedAtMs: 1_800_000_000_000 + keyId.length,
});

describe("the PostgreSQL deposit key registry", { skip: skipReason }, () => {
  const databases = postgresDatabases("deposit_key_registry");
  after(() => databases.close());

  it("records the first claim and answers it to every later one", async () => {
    const registry = await openPostgresDepositKeyRegistry(await databases.freshPool());
    assert.equal(await registry.current(), undefined);
    assert.deepEqual(await registry.claim(record("aa", "master-key-demo")), record("aa", "master-key-demo"));
    assert.deepEqual(await registry.claim(record("bbbb")), record("aa", "master-key-demo"));
    assert.deepEqual(await registry.current(), record("aa", "master-key-demo"));
  });

  it("gives nodes claiming at once one key", async () => {
    const url = await databases.fresh();
    const registries = await Promise.all(
      Array.from({ length: 6 }, (_, node) =>
        openPostgresDepositKeyRegistry(databases.pool(url, `node-${node}`)),
      ),
    );
    const answers = await Promise.all(
      registries.map((registry, node) => registry.claim(record(`key-${node}`))),
    );
    assert.equal(new Set(answers.map((answer) => answer.keyId)).size, 1);
    assert.deepEqual(await registries[0]!.current(), answers[0]);
  });

  it("replaces the key on the operator's word, answering the one replaced", async () => {
    const registry = await openPostgresDepositKeyRegistry(await databases.freshPool());
    assert.equal(await registry.replace(record("first")), undefined);
    assert.deepEqual(await registry.replace(record("second")), record("first"));
    assert.deepEqual(await registry.claim(record("third")), record("second"));
    assert.deepEqual(await registry.current(), record("second"));
  });
});
