// The SQLite gateway nonce table's own schema: a database written before the table was keyed by
// expiry is carried over whole, so a nonce answered before the upgrade is still refused after it.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { createSqliteGatewayNonceStore } from "../../../src/store/sqlite/gateway-nonces.js";

describe("SQLite gateway nonces", () => {
  it("keeps the live nonces of a table written before it was keyed by expiry", async () => {
    const db = openDatabase({ path: ":memory:" });
    // The table as its first migration made it, with one live and one expired nonce.
    db.exec(`CREATE TABLE gateway_nonces (
       app_key TEXT NOT NULL,
       nonce TEXT NOT NULL,
       expires_at_ms INTEGER NOT NULL,
       PRIMARY KEY (app_key, nonce)
     ) WITHOUT ROWID;
     CREATE INDEX gateway_nonces_by_expiry ON gateway_nonces (expires_at_ms);
     INSERT INTO schema_migrations (module, version) VALUES ('gateway_nonces', 1);
     INSERT INTO gateway_nonces VALUES ('p', 'live', 5000), ('p', 'expired', 900);`);

    const store = createSqliteGatewayNonceStore(db, { windowMs: 4_000, nowMs: () => 1_000 });

    assert.equal(await store.remember("p", "live", 1_000), "replayed");
    assert.equal(await store.remember("p", "expired", 1_000), "fresh");
    const key = db
      .prepare<[], { name: string; pk: number }>("SELECT name, pk FROM pragma_table_info('gateway_nonces')")
      .all()
      .filter((column) => column.pk > 0)
      .sort((left, right) => left.pk - right.pk)
      .map((column) => column.name);
    assert.deepEqual(key, ["expires_at_ms", "app_key", "nonce"]);
    const rows = db
      .prepare("SELECT app_key, nonce, expires_at_ms FROM gateway_nonces ORDER BY 1, 2, 3")
      .all();
    assert.deepEqual(rows, [
      { app_key: "p", nonce: "expired", expires_at_ms: 900 },
      { app_key: "p", nonce: "expired", expires_at_ms: 5_000 },
      { app_key: "p", nonce: "live", expires_at_ms: 5_000 },
    ]);
  });
});
