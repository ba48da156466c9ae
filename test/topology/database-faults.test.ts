// The deployment of issue #16 in processes of its own (two `predex serve --role engine` nodes, two
// `predex serve --role api` nodes, the real CLI) on a PostgreSQL primary with a synchronous
// streaming replica, every node pointed at both through the multi-host URL with
// target_session_attrs=read-write. Partners' users trade through both API nodes with the SDK, every
// order resent with its clientOrderId until acknowledged (test/support/resending-orders.ts), while
// the database goes through, one after another:
//   a restart; a stop held for a while, then a start; a crash (immediate stop) and a start; a
//   read-only spell (default_transaction_read_only through ALTER SYSTEM and a reload); and a
//   failover: the primary crashed and the synchronous replica promoted.
// Checked: no node exits (the engine nodes ride every fault out in-process); after each fault an
// order is acknowledged again, and every node's /readyz said 503 during it and 200 after; at the end
// no order was placed twice and every acknowledged one is there under its id, money is conserved to
// the atom in the journal's state, both API nodes report every user's balance as the journal does
// and show the same book, and neither server's log has a deadlock.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import {
  assertInvariants,
  balanceOf,
  type ExchangeCommand,
  type ExchangeEvent,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { JournalFollower } from "../../src/engine/journal-follower.js";
import { openPostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { CliTopology, readyStatus } from "../support/cli-deployment.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { checkOrders, ResendingOrders, setUpTrading } from "../support/resending-orders.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const adminToken = "database-faults-admin-token-0123456789";
const usersCount = 6;
const depositUsdt = "10000";
const leaseMs = 2_000;
/** How long a stop and a read-only spell last: past the lease, so no leader is left live. */
const faultHoldMs = leaseMs + 1_500;
const recoveryMsMax = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** "123.45678901" → atoms of 1e-8. */
function atomsOf(decimal: string): bigint {
  const [whole, fraction = ""] = decimal.split(".");
  return BigInt(whole!) * 100_000_000n + BigInt(fraction.padEnd(8, "0"));
}

/**
 * Every node's /readyz, each polled on its own until stopped (a slow answer from one never delays
 * another's samples): which nodes said anything but 200 in a window.
 */
class ReadinessWatch {
  readonly #samples: { probe: number; startedMs: number; status: number }[] = [];
  #running = true;
  readonly #done: Promise<void>;
  readonly #probes: number;

  constructor(urls: readonly string[]) {
    this.#probes = urls.length;
    this.#done = Promise.all(
      urls.map(async (url, probe) => {
        while (this.#running) {
          const startedMs = performance.now();
          this.#samples.push({ probe, startedMs, status: await readyStatus(url) });
          await sleep(50);
        }
      }),
    ).then(() => {});
  }

  /** For each probe, whether an answer to a request sent between fromMs and toMs was not 200. */
  notReadyBetween(fromMs: number, toMs: number): boolean[] {
    return Array.from({ length: this.#probes }, (_, probe) =>
      this.#samples.some(
        (sample) =>
          sample.probe === probe &&
          sample.startedMs >= fromMs &&
          sample.startedMs <= toMs &&
          sample.status !== 200,
      ),
    );
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }
}

describe("engine and API nodes ride out database faults", { skip: skipReason }, () => {
  let topology: CliTopology;
  let load: ResendingOrders | undefined;
  let watch: ReadinessWatch | undefined;

  before(async () => {
    topology = await CliTopology.start("db-faults");
  });
  after(async () => {
    // A failed assertion leaves the load and the probes' poller running: stop them first.
    await watch?.stop();
    await load?.stop({ abandon: true });
    await topology?.stop();
  });

  it("restart, stop, crash, read-only spell and a promoted synchronous replica: no exit, nothing lost or doubled", {
    timeout: 420_000,
  }, async (t) => {
    const primary = topology.cluster;
    const env = await topology.env("faults", adminToken, { PREDEX_ENGINE_LEASE_MS: String(leaseMs) });
    const replica = await primary.startReplica({ synchronous: true });
    topology.onStop(() => replica.stop());
    // Both hosts, the writable one chosen at each connect (a promoted replica takes over).
    const url = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${replica.port}/faults?target_session_attrs=read-write`;
    const deployment = await topology.startDeployment({
      engines: 2,
      apis: 2,
      env: { ...env, PREDEX_DATABASE_URL: url },
    });
    const trading = await setUpTrading(deployment.apis, {
      adminToken,
      usersCount,
      depositUsdt,
      label: "faults",
    });
    load = new ResendingOrders(trading, { ordersPerUserMax: 2_000, resendForMs: recoveryMsMax });
    watch = new ReadinessWatch([...deployment.apis.map((api) => api.admin), ...deployment.engineProbeUrls()]);
    const orders = load;
    const probes = watch;
    orders.start();
    await orders.acknowledgedMore(60, recoveryMsMax);

    const live = deployment;
    const fault = async (name: string, inject: () => Promise<void>) => {
      const fromMs = performance.now();
      await inject();
      // The database takes writes again from here: an order sent from now on must be acknowledged.
      const backMs = performance.now();
      const firstMs = await orders.firstAcknowledgedSentAfter(backMs, recoveryMsMax);
      let statuses: number[] = [];
      await waitUntil(
        async () => {
          statuses = [...(await live.readiness()), ...(await live.engineReadiness())];
          return statuses.every((status) => status === 200);
        },
        {
          what: () => `${name}: every node ready again (${statuses.join(", ")})`,
          timeoutMs: recoveryMsMax,
          intervalMs: 100,
        },
      );
      const readyMs = performance.now();
      t.diagnostic(
        `${name}: the database took writes again after ${(backMs - fromMs).toFixed(0)} ms; the first order ` +
          `sent after that was acknowledged ${(firstMs - backMs).toFixed(0)} ms later, every node ready ` +
          `${(readyMs - backMs).toFixed(0)} ms later`,
      );
      const notReady = probes.notReadyBetween(fromMs, readyMs);
      assert.equal(notReady.length, 4, `${name}: two API nodes and two engine nodes were probed`);
      assert.deepEqual(notReady, [true, true, true, true], `${name}: every node said 503 during the fault`);
      assert.deepEqual(live.exits, [], `${name}: no node exited`);
      await orders.acknowledgedMore(30, recoveryMsMax);
    };

    await fault("restart", () => primary.restart("fast"));
    await fault("stop, then start", async () => {
      await primary.shutdown("fast");
      await sleep(faultHoldMs);
      await primary.start();
    });
    await fault("crash, then start", async () => {
      await primary.shutdown("immediate");
      await primary.start();
    });
    await fault("read-only spell", async () => {
      await primary.execute("ALTER SYSTEM SET default_transaction_read_only = on");
      await primary.execute("SELECT pg_reload_conf()");
      await sleep(faultHoldMs);
      await primary.execute("ALTER SYSTEM RESET default_transaction_read_only");
      await primary.execute("SELECT pg_reload_conf()");
    });
    const newPrimary = replica;
    await fault("failover to the synchronous replica", async () => {
      await primary.shutdown("immediate");
      await newPrimary.promote();
    });

    await orders.stop();
    await probes.stop();
    t.diagnostic(
      `${orders.acknowledged.length} orders acknowledged; answers that were not an acknowledgement: ${JSON.stringify(
        Object.fromEntries(orders.answers),
      )}`,
    );
    assert.deepEqual(orders.failures, [], "every order was acknowledged in the end");
    // Every refusal said truthfully what happened: nothing done (502/2002) or unknown (504/2001), or
    // the network; never a 500.
    const untruthful = [...orders.answers.keys()].filter(
      (kind) => kind !== "network" && kind !== "502/2002" && kind !== "504/2001",
    );
    if (untruthful.length > 0) {
      // What the API nodes logged about them (pino level 50: error).
      for (const api of live.apis)
        for (const line of api.node.lines
          .filter((line) => line.includes('"level":50') && line.includes('"surface"'))
          .slice(0, 5))
          t.diagnostic(`api ${api.index}: ${line.slice(0, 1500)}`);
    }
    assert.deepEqual(untruthful, [], "only try-again-later and unknown-outcome answers");
    assert.deepEqual(live.exits, [], "no node exited");
    for (const node of [...live.engines, ...live.apis]) assert.ok(node.node.running);

    // Nothing placed twice, nothing acknowledged lost: asked of the promoted replica.
    const check = openPostgresPool({ url: newPrimary.urlOf("faults"), applicationName: "predex-test-check" });
    topology.onStop(() => check.end());
    assert.deepEqual(await checkOrders(check, trading, orders.acknowledged), { placedTwice: 0, lost: 0 });

    // Money: conserved to the atom in the journal's state, and every user's balance on both API nodes.
    const reader = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(check);
    const replay = await JournalFollower.start({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: reader,
    });
    const state = replay.position.state;
    assertInvariants(state);
    let balances = 0n;
    for (const user of trading.users) {
      const journal = balanceOf(state, Number(user.userId));
      balances += journal.total;
      const reported = await Promise.all(user.clients.map((client) => client.getAssets()));
      for (const assets of reported) {
        assert.equal(atomsOf(assets.find((asset) => asset.coinId === "2")!.total), journal.total);
      }
    }
    const collateral = [...state.outcomes.values()].reduce((sum, item) => sum + item.collateral, 0n);
    assert.equal(state.totals.deposited, BigInt(usersCount) * atomsOf(depositUsdt));
    assert.equal(balances + collateral + state.totals.feeIncome, state.totals.deposited);
    const books = await Promise.all(
      trading.users[0]!.clients.map((client) =>
        client.getBook({ marketId: trading.marketId, outcomeId: trading.outcomeId }),
      ),
    );
    assert.deepEqual(books[0], books[1], "both API nodes show the same book");

    // PostgreSQL's own account: no deadlock on either server.
    for (const log of [primary.logPath, newPrimary.logPath]) {
      const deadlocks = readFileSync(log, "utf8").match(/deadlock detected/g)?.length ?? 0;
      assert.equal(deadlocks, 0, `${log}: deadlocks`);
    }
  });
});
