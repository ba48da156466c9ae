// Issue 27 defect 3 over the real deployment: PostgreSQL, an engine node and an API node in processes
// of their own (the CLI), partners' users on the SDK over real sockets signing a nonce into every
// request (the gateway's nonce write is the first thing a database outage broke), a stream of reads
// and orders. The database is stopped (a fast shutdown: every session ended, then nothing listens)
// for a few seconds and started again; then it turns read-only for a few seconds.
//
// Checked: no answer is a 500, on the signed host or on the public and legacy listeners probed
// alongside; every refusal is 502/2002 (nothing was done) or 504/2001 (outcome unknown), each with
// Retry-After; the API node never exits; once the database is back everything works again; every
// acknowledged order is there exactly once, every order the SDK gave up on is settled by sending it
// again with the same clientOrderId, and no user's money moved but what their orders froze.
//
// The engine node rides out both faults in its own process (issue 27 defect 5): it never exits and
// leads again once the database takes writes; no supervisor restarts anything here.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { legacyPaths } from "../../src/contract/legacy/paths.js";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { NetworkError, PredexApiError } from "../../src/sdk/errors.js";
import { CliTopology, leadingLine } from "../support/cli-deployment.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { type RecordedAnswer, recordingFetch } from "../support/recording-fetch.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const adminToken = "database-outage-admin-token-0123456789";
const usersCount = 3;
const depositUsdt = 100;
/** How long each fault lasts. */
const faultMs = 4_000;
/** Orders each user must have acknowledged after a fault ends: everything works again. */
const ordersAfterRecovery = 3;
/** The engine node rebuilds its state from the database and leads again meanwhile: bounded. */
const recoveryWaitMsMax = 180_000;
/** Every loop is bounded: a user's stream stops after this many rounds whatever happens. */
const roundsMax = 2_000;
const pauseBetweenRoundsMs = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("a PostgreSQL stop and restart under signed reads and orders", { skip: skipReason }, () => {
  let topology: CliTopology;

  before(async () => {
    topology = await CliTopology.start("database-outage");
  });
  after(() => topology?.stop());

  it("answers 502/2002 or 504/2001 with Retry-After, never 500, and everything works after the restart", {
    timeout: 360_000,
  }, async (t) => {
    const { cluster } = topology;
    const env = await topology.env("outage", adminToken, {
      PREDEX_ENGINE_LEASE_MS: "2000",
      PREDEX_FAILOVER_DEADLINE_MS: "3000",
    });
    const engine = topology.startNode("engine", env);
    let engineExited = false;
    void engine.exited.then(() => {
      engineExited = true;
    });
    await engine.waitFor(leadingLine, 90_000);
    const api = topology.startNode("api", env);
    const address = async (listener: string) =>
      (await api.waitFor(new RegExp(`^\\s+${listener}\\s.*?(https?://\\S+)`), 90_000))[1]!;
    const [gateway, publicUrl, legacyUrl, admin] = [
      await address("gateway"),
      await address("public"),
      await address("legacy"),
      await address("admin"),
    ];

    const operator = new PredexAdminClient({ baseUrl: admin, token: adminToken });
    const partner = await operator.createPartner();
    const created = await operator.createMarket({
      title: "Database outage",
      categoryId: (await operator.createCategory({ name: "Outages" })).id,
      startTime: isoSeconds(Date.now() - 60_000),
      endTime: isoSeconds(Date.now() + 86_400_000),
      outcomes: [{ name: "Database outage", options: [{ title: "Yes" }, { title: "No" }] }],
    });
    const market = await operator.openMarket(created.marketId);
    const outcome = market.outcomes[0]!;
    const [yes, no] = [outcome.options[0]!, outcome.options[1]!];
    let yesAssetId = "";

    const answers: RecordedAnswer[] = [];
    const users: {
      client: PredexClient;
      acknowledged: Map<string, string>;
      acknowledgedAtMs: number[];
      unsettled: Set<string>;
    }[] = [];
    for (let index = 0; index < usersCount; index++) {
      const client = new PredexClient({
        baseUrl: gateway,
        credentials: partner,
        nonces: true,
        fetch: recordingFetch(answers),
      });
      const user = await client.register({
        userEmail: `outage${index}@example.com`,
        merchantId: partner.merchantId,
        marchantUserId: `outage-${index}`,
      });
      await operator.deposit({
        userId: user.userId,
        amount: String(depositUsdt),
        txHash: `0xoutage${index}`,
      });
      users.push({
        client,
        acknowledged: new Map<string, string>(),
        acknowledgedAtMs: [],
        unsettled: new Set<string>(),
      });
    }
    yesAssetId = (await users[0]!.client.getBook({ marketId: market.marketId, outcomeId: outcome.outcomeId }))
      .assetId;

    // The stream: each user places a resting order (1 share at 0.10 on Yes or No: never a cross),
    // then reads its balance, its open orders and the book, round after round.
    let streaming = true;
    const thrown: string[] = [];
    const stream = users.map(async (user, userIndex) => {
      for (let round = 0; round < roundsMax && streaming; round++) {
        const clientOrderId = `outage-${userIndex}-${round}`;
        const steps: [string, () => Promise<unknown>][] = [
          [
            "order",
            async () => {
              const order = await user.client.createOrder({
                marketId: market.marketId,
                outcomeId: outcome.outcomeId,
                optionId: (round % 2 === 0 ? yes : no).optionId,
                side: "BUY",
                orderType: "LIMIT",
                limitPrice: 0.1,
                shares: 1,
                clientOrderId,
              });
              user.acknowledged.set(clientOrderId, order.orderId);
              user.acknowledgedAtMs.push(Date.now());
            },
          ],
          ["assets", () => user.client.getAssets()],
          ["open orders", () => user.client.getOpenOrders({ marketId: market.marketId })],
          ["book", () => user.client.getBook({ marketId: market.marketId, outcomeId: outcome.outcomeId })],
        ];
        for (const [name, step] of steps) {
          try {
            await step();
          } catch (error) {
            if (name === "order") user.unsettled.add(clientOrderId);
            // What reaches the partner after the SDK's own retries: a try-again-later, or no answer.
            if (error instanceof PredexApiError || error instanceof NetworkError) continue;
            thrown.push(`${name}: ${String(error)}`);
          }
        }
        await sleep(pauseBetweenRoundsMs);
      }
    });
    // Beside the stream, a prober of the public and legacy listeners' database-backed reads.
    const probes: { surface: string; status: number }[] = [];
    const probing = (async () => {
      while (streaming) {
        for (const [surface, url] of [
          ["public", `${publicUrl}/prices-history?market=${yesAssetId}&interval=max`],
          ["legacy", `${legacyUrl}${legacyPaths.category}`],
        ] as const) {
          try {
            const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
            const body = await response.text();
            probes.push({ surface, status: response.status });
            if (response.status >= 500 && response.status !== 502 && response.status !== 503)
              t.diagnostic(`${surface} answered ${response.status}: ${body.slice(0, 300)}`);
          } catch {
            probes.push({ surface, status: 0 });
          }
        }
        await sleep(100);
      }
    })();

    /** Until every user has orders acknowledged after `sinceMs`: everything works again. */
    const recovered = (what: string, sinceMs: number) =>
      waitUntil(
        () =>
          users.every(
            (user) => user.acknowledgedAtMs.filter((atMs) => atMs > sinceMs).length >= ordersAfterRecovery,
          ),
        { what: `${what}: orders acknowledged`, timeoutMs: recoveryWaitMsMax, intervalMs: 100 },
      );
    // The stream and the probes run before the outage: every user's orders acknowledged, both listeners probed.
    await recovered("before the outage", 0);
    await waitUntil(() => new Set(probes.map((probe) => probe.surface)).size === 2, {
      what: "both listeners probed",
    });
    const answeredBefore = answers.length;
    assert.ok(
      answers.every((answer) => answer.status === 200),
      `all well before the outage: ${JSON.stringify(answers.filter((a) => a.status !== 200))}`,
    );
    const answersBetween = (fromMs: number, toMs: number) =>
      answers.filter((answer) => answer.atMs >= fromMs && answer.atMs <= toMs);

    // A stop: every session ended (57P01), then nothing listens; then a start on the same port.
    const stoppedAtMs = Date.now();
    await cluster.shutdown("fast");
    await sleep(faultMs);
    await cluster.start();
    const restartedAtMs = Date.now();
    await recovered("after the restart", restartedAtMs);
    const outage = answersBetween(stoppedAtMs, restartedAtMs);

    // A read-only spell (a standby, or an operator's default_transaction_read_only): every write
    // is refused with 25006 while reads go on.
    const operatorSession = new pg.Client({ connectionString: cluster.urlOf("postgres") });
    await operatorSession.connect();
    const readOnlyAtMs = Date.now();
    try {
      await operatorSession.query("SET default_transaction_read_only = off");
      await operatorSession.query("ALTER SYSTEM SET default_transaction_read_only = on");
      await operatorSession.query("SELECT pg_reload_conf()");
      await sleep(faultMs);
      await operatorSession.query("ALTER SYSTEM RESET default_transaction_read_only");
      await operatorSession.query("SELECT pg_reload_conf()");
    } finally {
      await operatorSession.end();
    }
    const writableAtMs = Date.now();
    await recovered("after the read-only spell", writableAtMs);
    const readOnlySpell = answersBetween(readOnlyAtMs, writableAtMs);
    streaming = false;
    await Promise.all(stream);
    await probing;

    const tally = (list: readonly { status: number; code?: number | null }[]) => {
      const counts: Record<string, number> = {};
      for (const { status, code } of list) {
        const key =
          code === undefined || code === null || status === 200 ? String(status) : `${status}/${code}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return JSON.stringify(counts);
    };
    t.diagnostic(`outage ${restartedAtMs - stoppedAtMs} ms; answers during it: ${tally(outage)}`);
    t.diagnostic(`read-only ${writableAtMs - readOnlyAtMs} ms; answers during it: ${tally(readOnlySpell)}`);
    t.diagnostic(`all answers: ${tally(answers)}; probes: ${tally(probes)}`);
    const leads = engine.lines.filter((line) => leadingLine.test(line)).length;
    t.diagnostic(`engine node leads: ${leads} (one process throughout)`);
    assert.equal(engineExited, false, "the engine node rode out both faults without exiting");
    assert.ok(leads >= 2, "the engine node stepped down with the database and led again");

    // Never a 500: every refusal is the spec's try-again-later, with Retry-After.
    const refusals = answers.filter((answer) => answer.status !== 200);
    const badRefusals = refusals.filter(
      (answer) =>
        !(
          ((answer.status === 502 && answer.code === 2002) ||
            (answer.status === 504 && answer.code === 2001)) &&
          /^[1-9][0-9]*$/.test(answer.retryAfter ?? "")
        ),
    );
    assert.deepEqual(badRefusals, [], "every refusal is 502/2002 or 504/2001 with Retry-After");
    assert.ok(
      outage.some((answer) => answer.status === 502),
      `the outage was met (${answers.length - answeredBefore} answers since): ${JSON.stringify(outage.slice(0, 5))}`,
    );
    assert.ok(
      readOnlySpell.some((answer) => answer.status === 502),
      `the read-only spell was met: ${tally(readOnlySpell)}`,
    );
    assert.deepEqual(
      probes.filter((probe) => probe.status >= 500 && probe.status !== 502 && probe.status !== 503),
      [],
      "the public and legacy listeners never answer 500 either",
    );
    assert.deepEqual(thrown, []);
    assert.ok(api.running, "the API node rode out the outage");

    // Everything works again: each user placed orders after the restart (the stream ended on it),
    // and every order the SDK gave up on is settled by sending it again with its clientOrderId.
    for (const [userIndex, user] of users.entries()) {
      for (const clientOrderId of user.unsettled) {
        if (user.acknowledged.has(clientOrderId)) continue;
        const round = Number(clientOrderId.split("-")[2]);
        const order = await user.client.createOrder({
          marketId: market.marketId,
          outcomeId: outcome.outcomeId,
          optionId: (round % 2 === 0 ? yes : no).optionId,
          side: "BUY",
          orderType: "LIMIT",
          limitPrice: 0.1,
          shares: 1,
          clientOrderId,
        });
        user.acknowledged.set(clientOrderId, order.orderId);
      }
      // Exactly once: one open order per clientOrderId, each acknowledged one among them, and the
      // money frozen is theirs (0.1 USDT an order), nothing more.
      const open: { orderId: string; clientOrderId: string | null }[] = [];
      for (let page = 1; ; page++) {
        const { records, pages } = await user.client.getOpenOrders({
          marketId: market.marketId,
          page,
          pageSize: 100,
        });
        open.push(...records);
        if (page >= pages) break;
      }
      const byClientOrderId = new Map<string, string[]>();
      for (const order of open) {
        const ids = byClientOrderId.get(order.clientOrderId!) ?? [];
        ids.push(order.orderId);
        byClientOrderId.set(order.clientOrderId!, ids);
      }
      assert.deepEqual(
        [...byClientOrderId].filter(([, ids]) => ids.length > 1),
        [],
        `user ${userIndex}: no order placed twice`,
      );
      assert.deepEqual(
        [...user.acknowledged].filter(
          ([clientOrderId, orderId]) => byClientOrderId.get(clientOrderId)?.[0] !== orderId,
        ),
        [],
        `user ${userIndex}: every acknowledged order is there`,
      );
      assert.equal(open.length, user.acknowledged.size, `user ${userIndex}: no order nobody acknowledged`);
      const [usdt] = await user.client.getAssets();
      assert.equal(Number(usdt!.frozen), Number((open.length * 0.1).toFixed(8)));
      assert.equal(Number(usdt!.available) + Number(usdt!.frozen), depositUsdt);
    }
    assert.ok(api.running, "the API node is still up");
  });
});
