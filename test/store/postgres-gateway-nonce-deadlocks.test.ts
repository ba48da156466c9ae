// Issue #27 defect 4: the gateway nonce upsert deadlocked under load from several partners on two
// API nodes (18 deadlocks in 35 minutes, 58 requests answered 500). Each node group-commits the
// nonces of one event-loop turn in one statement, which also bumps one usage row per partner; the
// rows were locked in whatever order the plan produced (a hash aggregate's, which changes with the
// batch's size), so two batches holding partners A and B could each wait for the other.
//
// Two nodes (two pools on one database, as two API processes) send batches of varying sizes for
// five partners at once, with some nonces sent to both nodes in the same turn. Nothing may fail
// with a deadlock (SQLSTATE 40P01, and PostgreSQL's own count for the database stays 0), and each
// nonce sent to both nodes is fresh exactly once. A second test holds a row lock on an expired
// nonce and checks that the prune deletes the others around it instead of queueing behind it.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { NonceOutcome, NonceStore } from "../../src/store/gateway-nonces.js";
import { gatewayNoncePruneIntervalMs } from "../../src/store/gateway-nonces-batching.js";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import {
  openGatewayNoncePool,
  openPostgresGatewayNonceStore,
} from "../../src/store/postgres/gateway-nonces.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresDatabases } from "../support/postgres-databases.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const deadlockDetected = "40P01";
const windowMs = 30 * 60_000;
/** App keys as createPartner makes them: random-looking, so their hashes spread. */
const partners = Array.from(
  { length: 5 },
  (_unused, index) => `app-${(index * 7919 + 104_729).toString(36)}`,
);
/** Turns each node sends a batch in; bounded, about two seconds on a quiet machine. */
const turns = 400;
/** Batch sizes vary from turn to turn (1 to this many): the plan's row estimates vary with them. */
const batchSizeMax = 120;

/** PostgreSQL's count of deadlocks in the database, once the named nodes' backends have exited. */
async function deadlocksCounted(
  observer: PostgresPool,
  applicationNames: readonly string[],
): Promise<number> {
  // A backend reports its counts when it exits: wait until the nodes' connections are gone.
  await waitUntil(
    async () => {
      const result = await observer.query<{ backends: number }>(
        "SELECT count(*)::integer AS backends FROM pg_stat_activity WHERE application_name = ANY ($1::text[])",
        [applicationNames],
      );
      return result.rows[0]!.backends === 0;
    },
    { timeoutMs: 20_000 },
  );
  const client = await observer.connect();
  try {
    await client.query("SELECT pg_stat_clear_snapshot()");
    const result = await client.query<{ deadlocks: string }>(
      "SELECT deadlocks::text FROM pg_stat_database WHERE datname = current_database()",
    );
    return Number(result.rows[0]!.deadlocks);
  } finally {
    client.release();
  }
}

if (skipReason !== undefined) {
  it("gateway nonce deadlocks: postgres", { skip: skipReason }, () => {});
} else {
  const databases = postgresDatabases("noncelocks");
  after(() => databases.close());

  describe("gateway nonces on two API nodes under load", () => {
    // Pools of the test's own, ended before counting: a backend reports its deadlocks as it exits.
    // The lock order must not depend on which plan PostgreSQL picks: every batch planned for its own
    // size (as a pool's connection plans its first five executions of a statement), and the nonce
    // pool's one generic plan per connection (as an API node runs the statement: openGatewayNoncePool).
    const plannings = {
      "each batch planned for its size": (url: string, applicationName: string) =>
        openPostgresPool({ url, applicationName, poolConnectionsMax: 4, customPlansOnly: true }),
      "the nonce pool's generic plan": (url: string, applicationName: string) =>
        openGatewayNoncePool({ url, applicationName }),
    };
    for (const [planning, openNoncePool] of Object.entries(plannings)) {
      it(`never deadlock, and a nonce sent to both nodes at once is fresh exactly once (${planning})`, async () => {
        const url = await databases.fresh();
        const names = ["predex-api-a", "predex-api-b"] as const;
        const pools = names.map((name) => openNoncePool(url, name));
        const nodes = await Promise.all(
          pools.map((pool) => openPostgresGatewayNonceStore(pool, { windowMs, statementPool: pool })),
        );
        const failures: unknown[] = [];
        const sharedOutcomes = new Map<string, NonceOutcome[]>();
        let answered = 0;
        const inFlight = new Set<Promise<void>>();
        const send = (node: NonceStore, partner: string, nonce: string, shared: boolean) => {
          const request = Promise.resolve(node.remember(partner, nonce, Date.now())).then(
            (outcome) => {
              answered += 1;
              if (shared) sharedOutcomes.get(nonce)!.push(outcome);
              else if (outcome !== "fresh") failures.push(new Error(`${nonce} was ${outcome}, not fresh`));
            },
            (error: unknown) => {
              failures.push(error);
            },
          );
          const tracked = request.finally(() => inFlight.delete(tracked));
          inFlight.add(tracked);
        };

        for (let turn = 0; turn < turns; turn += 1) {
          for (const [nodeIndex, node] of nodes.entries()) {
            const batchSize = 1 + ((turn * 37 + nodeIndex * 53) % batchSizeMax);
            for (let item = 0; item < batchSize; item += 1) {
              send(
                node,
                partners[(turn + item * 3) % partners.length]!,
                `n-${nodeIndex}-${turn}-${item}`,
                false,
              );
            }
          }
          // A captured request replayed on the other node in the same moment.
          if (turn % 5 === 0) {
            const nonce = `shared-${turn}`;
            sharedOutcomes.set(nonce, []);
            for (const node of nodes) send(node, partners[turn % partners.length]!, nonce, true);
          }
          // One turn per batch (each node flushes what one turn gathered); several stay in flight.
          await new Promise((resolve) => setImmediate(resolve));
          if (inFlight.size > 4_000) await Promise.all(inFlight);
        }
        await Promise.all(inFlight);

        const deadlocked = failures.filter(
          (error) => (error as { code?: unknown }).code === deadlockDetected,
        ).length;
        assert.equal(deadlocked, 0, `${deadlocked} requests failed with a deadlock`);
        assert.deepEqual(failures, [], "no request failed at all");
        for (const [nonce, outcomes] of sharedOutcomes) {
          assert.deepEqual(
            [...outcomes].sort(),
            ["fresh", "replayed"],
            `${nonce}: fresh once, then replayed`,
          );
        }
        assert.ok(answered > turns * batchSizeMax * 0.9, `the load ran (${answered} answers)`);

        await Promise.all(pools.map((pool) => pool.end()));
        const observer = databases.pool(url, "predex-test-observer");
        assert.equal(await deadlocksCounted(observer, names), 0, "PostgreSQL counted no deadlock");
      });
    }

    it("prune deletes expired nonces around a locked one instead of waiting for it", async () => {
      const url = await databases.fresh();
      let housekeepingNowMs = 0;
      const store = await openPostgresGatewayNonceStore(databases.pool(url, "predex-api-prune"), {
        windowMs: 1_000,
        nowMs: () => housekeepingNowMs,
      });
      for (const nonce of ["a", "b", "c"]) assert.equal(await store.remember("p", nonce, 0), "fresh");
      const other = await databases.pool(url, "predex-test-holder").connect();
      const remaining = async () =>
        (await other.query<{ nonce: string }>("SELECT nonce FROM gateway_nonces ORDER BY nonce")).rows.map(
          (row) => row.nonce,
        );
      try {
        // Another transaction holds one expired row (as an insert taking it over would).
        await other.query("BEGIN");
        await other.query("SELECT 1 FROM gateway_nonces WHERE nonce = 'b' FOR UPDATE");
        housekeepingNowMs = gatewayNoncePruneIntervalMs + 10_000;
        // A flush after the prune interval starts a prune in the background.
        assert.equal(await store.remember("p", "d", housekeepingNowMs), "fresh");
        // The prune deletes a and c while b is locked.
        await waitUntil(async () => (await remaining()).join() === "b,d");
      } finally {
        await other.query("ROLLBACK");
        other.release();
      }
    });
  });
}
