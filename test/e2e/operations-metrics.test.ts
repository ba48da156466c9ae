// The operator's GET /metrics (Prometheus text) and the probes GET /healthz and /readyz, on the
// admin listener of a real platform: the series move with traffic and carry route templates (never
// ids), /metrics needs the admin token, the probes do not, and /readyz says 503 when the engine has
// stopped or the database is gone.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { asynchronousReplicationWarning } from "../../src/store/postgres/replication-status.js";
import { startTestPlatform, type TestPlatform, testingOnPostgres } from "./harness.js";

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform();
});
after(() => platform.close());

async function scrape(): Promise<string> {
  const response = await platform.admin("GET", "/metrics");
  assert.equal(response.status, 200, response.text);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return response.text;
}

/** The value of one series, or undefined when it is absent. Labels are given in exposition order. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const labelText = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(",");
  const prefix = labelText === "" ? `${name} ` : `${name}{${labelText}} `;
  const line = text.split("\n").find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

/**
 * What /readyz reports of the database's replication: on PostgreSQL (the test cluster has no
 * standby) that it is not synchronous, with the warning; nothing on SQLite.
 */
const replicationDetail = testingOnPostgres
  ? {
      replication: {
        synchronous: false,
        synchronousStandbyNames: "",
        synchronousCommit: "on",
        standbys: 0,
        synchronousStandbys: 0,
        warning: asynchronousReplicationWarning,
      },
    }
  : {};

describe("GET /metrics", () => {
  it("needs the admin token: 401/1401 without it or with a wrong one", async () => {
    const missing = await platform.raw("admin", { path: "/metrics" });
    assert.equal(missing.status, 401);
    assert.deepEqual(missing.json, {
      code: 1401,
      message: "unauthorized: Missing Authorization header",
      data: null,
    });
    const wrong = await platform.raw("admin", {
      path: "/metrics",
      headers: { authorization: "Bearer nope" },
    });
    assert.equal(wrong.status, 401);
  });

  it("counts requests by surface, route template, method and status, with latency buckets", async () => {
    const { client, user } = await platform.registeredUser();
    const profile = { surface: "gateway", route: "/user/:id", method: "GET", status: "200" };
    const before = await scrape();
    const countBefore = series(before, "predex_http_request_duration_seconds_count", profile) ?? 0;
    for (let index = 0; index < 3; index += 1) await client.request("GET", `/user/${user.userId}`);
    await platform.raw("public", { path: "/no/such/route" });
    const after = await scrape();

    assert.equal(series(after, "predex_http_request_duration_seconds_count", profile), countBefore + 3);
    assert.ok((series(after, "predex_http_request_duration_seconds_sum", profile) ?? 0) > 0);
    assert.equal(
      series(after, "predex_http_request_duration_seconds_bucket", { le: "+Inf", ...profile }),
      countBefore + 3,
    );
    // The route is the template: no series names a user id.
    assert.ok(!after.includes(`route="/user/${user.userId}"`));
    // A path no route matches is counted under one label, not under its own path.
    assert.ok(
      (series(after, "predex_http_request_duration_seconds_count", {
        surface: "public",
        route: "unmatched",
        method: "GET",
        status: "404",
      }) ?? 0) >= 1,
    );
    assert.ok(!after.includes("/no/such/route"));
    // The admin listener's own requests are counted too (the scrape before this one).
    assert.ok(
      (series(after, "predex_http_request_duration_seconds_count", {
        surface: "admin",
        route: "/metrics",
        method: "GET",
        status: "200",
      }) ?? 0) >= 1,
    );
  });

  it("follows the engine: journal sequence, batch sizes and commit latency move with commands", async () => {
    const { user } = await platform.registeredUser();
    const before = await scrape();
    const deposit = await platform.admin("POST", "/admin/deposits", {
      userId: user.userId,
      amount: "5",
      txHash: `0xmetrics-${process.pid}`,
    });
    assert.equal(deposit.status, 200, deposit.text);
    const after = await scrape();
    const sequenceBefore = series(before, "predex_engine_journal_sequence")!;
    assert.ok(series(after, "predex_engine_journal_sequence")! >= sequenceBefore + 1);
    assert.ok(
      series(after, "predex_engine_batch_entries_count")! >
        (series(before, "predex_engine_batch_entries_count") ?? 0),
    );
    assert.ok(series(after, "predex_engine_commit_duration_seconds_sum")! > 0);
    assert.equal(series(after, "predex_engine_queue_commands"), 0);
    assert.equal(series(after, "predex_engine_up"), 1);
    // Both stores project the read models behind the journal, never ahead of it.
    const readModels = series(after, "predex_read_models_sequence");
    const journal = series(after, "predex_engine_journal_sequence")!;
    assert.ok(readModels !== undefined, "predex_read_models_sequence is exported");
    assert.ok(readModels <= journal, `${readModels} of ${journal}`);
    if (testingOnPostgres) {
      // The leader's steps follow within milliseconds (the position the database records).
      let caughtUp = await scrape();
      for (let waited = 0; waited < 10_000; waited += 50) {
        if (
          series(caughtUp, "predex_read_models_sequence") ===
          series(caughtUp, "predex_engine_journal_sequence")
        )
          break;
        await new Promise((resolve) => setTimeout(resolve, 50));
        caughtUp = await scrape();
      }
      assert.equal(
        series(caughtUp, "predex_read_models_sequence"),
        series(caughtUp, "predex_engine_journal_sequence"),
      );
    } else {
      assert.ok(readModels <= journal, `${readModels} of ${journal}`);
      // Once a read has caught them up, they hold the whole journal.
      platform.platform.catchUpReadModels();
      const caughtUp = await scrape();
      assert.equal(
        series(caughtUp, "predex_read_models_sequence"),
        series(caughtUp, "predex_engine_journal_sequence"),
      );
    }
    assert.ok(after.includes("# TYPE predex_engine_snapshot_duration_seconds histogram"));
  });

  it("counts WebSocket connections and messages per listener", async () => {
    const before = await scrape();
    const openBefore = series(before, "predex_ws_connections", { surface: "public" }) ?? 0;
    const socket = new WebSocket(new URL("/ws/market", platform.addresses.public.replace(/^http/, "ws")));
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const during = await scrape();
    assert.equal(series(during, "predex_ws_connections", { surface: "public" }), openBefore + 1);
    assert.ok((series(during, "predex_ws_connections_opened_total", { surface: "public" }) ?? 0) >= 1);
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.close();
    await closed;
    // The server sees the close a moment after the client: poll on the scrape, not on a timer.
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const now = await scrape();
      if (series(now, "predex_ws_connections", { surface: "public" }) === openBefore) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const afterClose = await scrape();
    assert.equal(series(afterClose, "predex_ws_connections", { surface: "public" }), openBefore);
    for (const name of [
      "predex_ws_messages_sent_total",
      "predex_ws_messages_dropped_total",
      "predex_ws_slow_consumer_closes_total",
    ]) {
      assert.notEqual(series(afterClose, name, { surface: "gateway" }), undefined, name);
    }
  });

  it("shows the legacy queue, webhook counters and the process metrics", async () => {
    const text = await scrape();
    assert.equal(series(text, "predex_legacy_queue_requests"), 0);
    assert.equal(series(text, "predex_legacy_webhook_attempts_total"), 0);
    assert.equal(series(text, "predex_legacy_webhook_failures_total"), 0);
    assert.ok((series(text, "process_cpu_seconds_total") ?? 0) > 0);
    assert.ok((series(text, "nodejs_heap_size_used_bytes") ?? 0) > 0);
  });

  it("counts journal forks (none here) and says whether the database replicates synchronously", async () => {
    const text = await scrape();
    assert.equal(series(text, "predex_journal_forks_total"), 0);
    if (testingOnPostgres) {
      assert.equal(
        series(text, "predex_database_synchronous_replication", { synchronous_standby_names: "" }),
        0,
      );
      assert.equal(series(text, "predex_database_standbys", { synchronous: "true" }), 0);
      assert.equal(series(text, "predex_database_standbys", { synchronous: "false" }), 0);
    } else {
      assert.doesNotMatch(text, /^predex_database_synchronous_replication/m);
    }
  });
});

describe("probes", () => {
  it("GET /healthz and /readyz answer 200 without the token", async () => {
    const health = await platform.raw("admin", { path: "/healthz" });
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { code: 0, message: "ok", data: { status: "alive" } });
    const ready = await platform.raw("admin", { path: "/readyz" });
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.json, {
      code: 0,
      message: "ok",
      data: { ready: true, engine: "running", database: "ok", leader: "ok", ...replicationDetail },
    });
  });

  it("GET /readyz is 503 once the engine has stopped, and names a database that is gone", async () => {
    const stopping = await startTestPlatform();
    try {
      await stopping.platform.deps.engine.close();
      const engineStopped = await stopping.raw("admin", { path: "/readyz" });
      assert.equal(engineStopped.status, 503);
      assert.deepEqual(engineStopped.json, {
        code: 2002,
        message: "not ready: engine closed",
        data: { ready: false, engine: "closed", database: "ok", leader: "ok", ...replicationDetail },
      });
      await stopping.platform.stores.close();
      const databaseGone = await stopping.raw("admin", { path: "/readyz" });
      assert.equal(databaseGone.status, 503);
      assert.equal((databaseGone.json as { data: { database: string } }).data.database, "unreachable");
      // Liveness still holds: the process answers.
      assert.equal((await stopping.raw("admin", { path: "/healthz" })).status, 200);
    } finally {
      await stopping.close().catch(() => undefined);
    }
  });
});
