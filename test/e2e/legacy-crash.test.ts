// The legacy queue across a crash: `predex serve` runs as a child process, takes a burst of order
// submissions, and is killed with SIGKILL while requests are still queued. After a restart on the
// same data dir every acknowledged request (and any the kill cut short) executes exactly once:
// the user's frozen balance and the orders read model show one order per SUCCESS, and no more.

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { LegacyClient } from "../../src/sdk/legacy/client.js";
import { rsaKeyPair } from "../legacy/fixtures.js";
import { waitForValue, waitUntil } from "../support/wait-until.js";
import { testDatabaseEnv, testMasterKeyHex } from "./harness.js";
import { storedRows } from "./store-contents.js";

const cliEntry = join(import.meta.dirname, "../../src/cli/main.ts");
const adminToken = "legacy-crash-test-admin-token";
const hourMs = 3_600_000;

interface Server {
  readonly child: ChildProcess;
  readonly legacy: string;
  readonly admin: string;
}

async function serve(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, ["--import", "tsx", cliEntry, "serve"], {
    env: {
      ...process.env,
      PREDEX_DATA_DIR: dataDir,
      // The dir's database in the PostgreSQL pass (the same one after the restart).
      ...testDatabaseEnv(dataDir),
      PREDEX_PORT: "0",
      PREDEX_PUBLIC_PORT: "0",
      PREDEX_LEGACY_PORT: "0",
      PREDEX_ADMIN_PORT: "0",
      PREDEX_ADMIN_TOKEN: adminToken,
      PREDEX_MASTER_KEY: testMasterKeyHex,
      PREDEX_LOG_LEVEL: "silent",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return waitForValue(
    () => {
      if (child.exitCode !== null) throw new Error(`serve exited:\n${output}`);
      const legacy = /legacy\s+\(\/api\/\.\.\.\)\s+(\S+)/.exec(output)?.[1];
      const admin = /admin\s+\(\/admin\/\.\.\.\)\s+(\S+)/.exec(output)?.[1];
      return legacy !== undefined && admin !== undefined ? { child, legacy, admin } : undefined;
    },
    { what: () => `serve to start:\n${output}`, timeoutMs: 30_000, intervalMs: 50 },
  );
}

async function kill(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGKILL");
  await exited;
}

describe("the legacy queue across a SIGKILL", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-legacy-crash-"));
  const servers: Server[] = [];
  after(async () => {
    for (const server of servers) await kill(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("executes every queued request exactly once after a restart", async (t) => {
    const first = await serve(dataDir);
    servers.push(first);
    const operator = new PredexAdminClient({ baseUrl: first.admin, token: adminToken });
    // Several merchants, so the burst stays under each one's 50 requests per second.
    const merchantsCount = 8;
    const merchants = await Promise.all(
      Array.from({ length: merchantsCount }, async () => {
        const keys = rsaKeyPair();
        const created = await fetch(`${first.admin}/admin/partners`, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ rsaPublicKey: keys.publicKeyPem }),
        });
        const partner = ((await created.json()) as { data: { merchantId: string; apiKey: string } }).data;
        return { ...partner, keys };
      }),
    );
    const market = await operator.createMarket({
      title: "Will the queue survive?",
      categoryId: (await operator.createCategory({ name: "Bench" })).id,
      startTime: new Date(Date.now() - hourMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
      endTime: new Date(Date.now() + 24 * hourMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
      outcomes: [{ name: "Survive", options: [{ title: "Yes" }, { title: "No" }] }],
    });
    const opened = await operator.openMarket(market.marketId);
    const outcome = opened.outcomes[0]!;
    const client = (baseUrl: string, merchant: (typeof merchants)[number]) =>
      new LegacyClient({
        baseUrl,
        apiKey: merchant.apiKey,
        privateKey: merchant.keys.privateKey,
        user: { merchantId: merchant.merchantId, marchantUserId: "survivor" },
        retry: { attemptsMax: 3, delayMsBase: 10, delayMsMax: 50 },
      });
    const traders = merchants.map((merchant) => client(first.legacy, merchant));
    const userIds: number[] = [];
    for (const [index, trader] of traders.entries()) {
      const { userId } = await trader.authorize();
      userIds.push(userId);
      await operator.deposit({ userId: String(userId), amount: "1000", txHash: `0xcrash-${index}` });
    }
    // Each request: a LIMIT BUY of 100 Yes at 0.01 (1 USDT), resting, so each adds exactly 1 to frozen.
    const order = {
      marketId: Number(opened.marketId),
      outcomeId: Number(outcome.outcomeId),
      optionId: Number(outcome.options[0]!.optionId),
      direction: "BUY",
      orderType: "LIMIT",
      price: 0.01,
      amount: 1,
    } as const;
    const submissionsPerMerchant = 45;
    const acknowledged: { id: string; merchant: number }[] = [];
    let killed: Promise<void> | undefined;
    await Promise.allSettled(
      Array.from({ length: submissionsPerMerchant * merchantsCount }, async (_unused, index) => {
        const merchant = index % merchantsCount;
        const id = { id: await traders[merchant]!.submitOrder(order), merchant };
        acknowledged.push(id);
        // Kill mid-burst: the later submissions are queued behind requests still executing.
        if (acknowledged.length === 150) killed = kill(first);
      }),
    );
    await killed;
    assert.ok(acknowledged.length >= 150);

    // What the kill left behind, read from the store itself (SQLite's file or PostgreSQL).
    const [atKill] = await storedRows(
      dataDir,
      "SELECT count(*) AS queued, sum(CASE WHEN status = 'PENDING' THEN 1 ELSE 0 END) AS pending FROM legacy_requests",
    );
    const queuedAtKill = Number(atKill!.queued);
    const pendingAtKill = Number(atKill!.pending);
    assert.ok(queuedAtKill >= acknowledged.length, "every acknowledged request was durably queued");
    assert.ok(pendingAtKill > 0, "the kill left requests pending");
    t.diagnostic(
      `${acknowledged.length} acknowledged, ${queuedAtKill} queued, ${pendingAtKill} pending at the kill`,
    );

    const second = await serve(dataDir);
    servers.push(second);
    const resumed = merchants.map((merchant) => client(second.legacy, merchant));
    for (const { id, merchant } of acknowledged) {
      const result = await resumed[merchant]!.waitForResult(id, { timeoutMs: 30_000, intervalMs: 20 });
      assert.equal(result.status, "SUCCESS", id);
    }
    // Requests the kill interrupted after they were queued but before they were answered run too.
    await waitUntil(
      async () => {
        const [check] = await storedRows(
          dataDir,
          "SELECT count(*) AS n FROM legacy_requests WHERE status = 'PENDING'",
        );
        return Number(check!.n) === 0;
      },
      { what: "the queue drained after the restart", timeoutMs: 30_000, intervalMs: 50 },
    );
    const exitedCleanly = new Promise((resolve) => second.child.once("exit", resolve));
    second.child.kill("SIGTERM");
    await exitedCleanly;

    const requests = (await storedRows(dataDir, "SELECT request_id, status FROM legacy_requests")) as {
      request_id: string;
      status: string;
    }[];
    const orders = (
      await storedRows(
        dataDir,
        `SELECT client_order_id, count(*) AS n FROM exchange_orders
         WHERE user_id IN (${userIds.join(",")}) GROUP BY client_order_id`,
      )
    ).map((row) => ({ client_order_id: row.client_order_id as string, n: Number(row.n) }));
    assert.ok(requests.every((request) => request.status === "SUCCESS"));
    assert.equal(orders.length, requests.length, "one order per request");
    assert.ok(
      orders.every((row) => row.n === 1),
      "no request placed two orders",
    );
    assert.deepEqual(
      new Set(orders.map((row) => row.client_order_id)),
      new Set(requests.map((request) => `fg:${request.request_id}`)),
    );

    // The balance agrees: 1 USDT frozen per order, no more.
    const [final] = await storedRows(
      dataDir,
      `SELECT CAST(sum(frozen) AS BIGINT) AS frozen FROM exchange_balances WHERE user_id IN (${userIds.join(",")})`,
    );
    const frozenAtoms = final!.frozen as bigint;
    assert.equal(frozenAtoms, BigInt(requests.length) * 100_000_000n);
  });
});
