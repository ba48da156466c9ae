// Signed x-ca-nonce values are remembered for the gateway's 15-minute window durably and per
// partner: a request captured before a restart is refused after it (401/1401 Nonce already used),
// and one partner that fills its share cannot lock the others out.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { signRequest } from "../../src/sdk/signer.js";
import { startPlatform } from "../../src/server.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { createSqliteGatewayNonceStore } from "../../src/store/sqlite/gateway-nonces.js";
import { testPlatformConfig } from "./harness.js";

const directories: string[] = [];
after(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

async function createPartner(adminUrl: string, token: string) {
  const response = await fetch(new URL("/admin/partners", adminUrl), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: "{}",
  });
  return ((await response.json()) as { data: { appKey: string; appSecret: string; apiKey: string } }).data;
}

describe("gateway nonces", () => {
  it("a request captured before a restart is refused after it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "predex-nonces-"));
    directories.push(dataDir);
    const config = testPlatformConfig(dataDir);
    const first = await startPlatform(config);
    const partner = await createPartner(first.addresses.admin, first.adminToken);
    const captured = signRequest(partner, {
      method: "GET",
      path: "/markets/category-tree",
      nonce: randomUUID(),
    });
    const send = (baseUrl: string) =>
      fetch(new URL(captured.pathAndQuery, baseUrl), { headers: captured.headers });
    assert.equal((await send(first.addresses.gateway)).status, 200);
    assert.equal((await send(first.addresses.gateway)).status, 401, "replayed before the restart");
    await first.close();

    const second = await startPlatform(config);
    try {
      const replayed = await send(second.addresses.gateway);
      assert.equal(replayed.status, 401);
      assert.deepEqual(await replayed.json(), {
        code: 1401,
        message: "unauthorized: Nonce already used",
        data: null,
      });
      // A fresh nonce of the same partner still passes.
      const fresh = signRequest(partner, {
        method: "GET",
        path: "/markets/category-tree",
        nonce: randomUUID(),
      });
      const answer = await fetch(new URL(fresh.pathAndQuery, second.addresses.gateway), {
        headers: fresh.headers,
      });
      assert.equal(answer.status, 200);
    } finally {
      await second.close();
    }
  });

  it("are bounded per partner: one partner at its cap does not lock another out", async () => {
    const db = openDatabase({ path: ":memory:" });
    const store = createSqliteGatewayNonceStore(db, { windowMs: 1_000, entriesPerPartnerMax: 2 });
    assert.equal(await store.remember("partner-a", "1", 0), "fresh");
    assert.equal(await store.remember("partner-a", "2", 0), "fresh");
    assert.equal(await store.remember("partner-a", "3", 10), "full");
    assert.equal(await store.remember("partner-b", "1", 10), "fresh");
    assert.equal(await store.remember("partner-a", "1", 10), "replayed");
    // Once the window has passed, partner A's nonces expire and it may send new ones.
    assert.equal(await store.remember("partner-a", "3", 1_001), "fresh");
    db.close();
  });
});
