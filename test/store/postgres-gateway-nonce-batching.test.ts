// Issue #31 (PostgreSQL's commit path): an API node has at most two nonce statements in flight (the
// one PostgreSQL runs and one right behind it). The statement costs the server about 600 µs of CPU
// whatever it carries, and a node's statements for one partner queue for that partner's usage row
// anyway; so the nonces asked while two are in flight wait and go together in the next, instead of
// one statement per event-loop turn. Each request is still
// answered only once its own nonce is committed, and a failed statement fails only its own nonces.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { NonceOutcome } from "../../src/store/gateway-nonces.js";
import type { PostgresPool } from "../../src/store/postgres/database.js";
import {
  gatewayNonceStatementsInFlightMax,
  openGatewayNoncePool,
  openPostgresGatewayNonceStore,
} from "../../src/store/postgres/gateway-nonces.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresDatabases } from "../support/postgres-databases.js";

const skipReason = postgresSkipReason();
const windowMs = 5 * 60_000;
const rememberStatementName = "predex-gateway-nonces-remember";

/** A pool whose nonce statements are counted (by their nonces) and held until `release()`. */
function gatedPool(pool: PostgresPool) {
  const sent: number[] = [];
  let open!: () => void;
  let gate: Promise<void> | undefined = new Promise((resolve) => {
    open = resolve;
  });
  const failNext = { armed: false };
  const gated = new Proxy(pool, {
    get(target, key) {
      if (key !== "query") {
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      }
      return async (config: { name?: string; values?: unknown[][] }) => {
        if (config.name !== rememberStatementName) return target.query(config as never);
        sent.push(config.values![1]!.length);
        if (failNext.armed) {
          failNext.armed = false;
          throw new Error("connection lost");
        }
        const waiting = gate;
        if (waiting !== undefined) await waiting;
        return target.query(config as never);
      };
    },
  });
  return {
    pool: gated,
    sent,
    failNext,
    release() {
      gate = undefined;
      open();
    },
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

if (skipReason !== undefined) {
  it("gateway nonce batching: postgres", { skip: skipReason }, () => {});
} else {
  const databases = postgresDatabases("noncebatch");
  after(() => databases.close());

  describe("gateway nonces on PostgreSQL: two statements in flight per node at most", () => {
    it("sends the nonces asked while two statements are in flight together in the next", async () => {
      const gated = gatedPool(await databases.freshPool());
      const store = await openPostgresGatewayNonceStore(gated.pool, { windowMs });
      const now = Date.now();
      const outcomes: Promise<NonceOutcome>[] = [];
      outcomes.push(Promise.resolve(store.remember("partner-a", "n1", now)));
      await nextTurn();
      await nextTurn();
      assert.deepEqual(gated.sent, [1], "the first turn's nonce is sent at once");
      // A second turn: its nonces go right behind the first.
      outcomes.push(Promise.resolve(store.remember("partner-a", "n2", now)));
      outcomes.push(Promise.resolve(store.remember("partner-b", "n3", now)));
      await nextTurn();
      await nextTurn();
      assert.deepEqual(gated.sent, [1, 2], "the second turn's nonces are sent behind the first");
      // Three more turns while two are in flight: two partners, four nonces.
      outcomes.push(Promise.resolve(store.remember("partner-a", "n4", now)));
      await nextTurn();
      outcomes.push(Promise.resolve(store.remember("partner-b", "n5", now)));
      outcomes.push(Promise.resolve(store.remember("partner-a", "n6", now)));
      await nextTurn();
      outcomes.push(Promise.resolve(store.remember("partner-b", "n7", now)));
      await nextTurn();
      assert.deepEqual(gated.sent, [1, 2], "nothing else is sent while two are in flight");
      gated.release();
      assert.deepEqual(await Promise.all(outcomes), Array(7).fill("fresh"));
      assert.deepEqual(gated.sent, [1, 2, 4], "the four waiting nonces went in one statement");
      // Committed: a second node (a fresh store on the same database) finds every one replayed.
      const other = await openPostgresGatewayNonceStore(gated.pool, { windowMs });
      for (const [partner, nonce] of [
        ["partner-a", "n1"],
        ["partner-a", "n2"],
        ["partner-b", "n3"],
        ["partner-a", "n4"],
        ["partner-b", "n5"],
        ["partner-a", "n6"],
        ["partner-b", "n7"],
      ] as const) {
        assert.equal(await other.remember(partner, nonce, now), "replayed", `${partner} ${nonce}`);
      }
    });

    it("fails only the nonces of a failed statement, and sends the next as usual", async () => {
      const gated = gatedPool(await databases.freshPool());
      gated.release();
      const store = await openPostgresGatewayNonceStore(gated.pool, { windowMs });
      const now = Date.now();
      gated.failNext.armed = true;
      const failed = Promise.resolve(store.remember("partner-a", "f1", now));
      await assert.rejects(failed, /connection lost/);
      // Forgotten by the node's window: the same nonce may be tried again, and is fresh.
      assert.equal(await store.remember("partner-a", "f1", now), "fresh");
      assert.equal(await store.remember("partner-a", "f2", now), "fresh");
      assert.equal(await store.remember("partner-a", "f2", now), "replayed");
    });
  });

  // Issue #31 (i31-pg): planning the statement for each batch was about a third of its CPU at five
  // nonces a statement; the node's nonce pool plans it once per connection.
  describe("gateway nonces on PostgreSQL: the nonce pool plans the statement once", () => {
    it("runs every remember statement on its generic plan, with the same answers", async () => {
      const url = await databases.fresh();
      const statementPool = openGatewayNoncePool({ url, applicationName: "predex-test-noncepool" });
      try {
        const store = await openPostgresGatewayNonceStore(databases.pool(url), { windowMs, statementPool });
        const now = Date.now();
        for (let turn = 0; turn < 12; turn += 1) {
          const batch = Array.from({ length: 1 + (turn % 4) }, (_unused, item) =>
            store.remember(`partner-${item % 2}`, `g-${turn}-${item}`, now),
          );
          assert.deepEqual(await Promise.all(batch), Array(batch.length).fill("fresh"));
        }
        assert.equal(await store.remember("partner-0", "g-3-0", now), "replayed");
        // A fresh store (another node's window) finds them in the database.
        const other = await openPostgresGatewayNonceStore(databases.pool(url), { windowMs, statementPool });
        assert.equal(await other.remember("partner-1", "g-11-3", now), "replayed");
        // Every connection of the nonce pool (held at once, so each is a different one) planned it
        // generically only; a pool planning per batch counts custom plans here.
        const clients = await Promise.all(
          Array.from({ length: gatewayNonceStatementsInFlightMax }, () => statementPool.connect()),
        );
        let generic = 0;
        try {
          for (const client of clients) {
            const result = await client.query<{ generic_plans: string; custom_plans: string }>(
              "SELECT generic_plans::text, custom_plans::text FROM pg_prepared_statements WHERE name = $1",
              [rememberStatementName],
            );
            for (const row of result.rows) {
              assert.equal(row.custom_plans, "0", "no batch was planned for its own parameters");
              generic += Number(row.generic_plans);
            }
          }
        } finally {
          for (const client of clients) client.release();
        }
        assert.equal(generic, 13, "each of the 13 statements ran on a connection's generic plan");
      } finally {
        await statementPool.end();
      }
    });
  });
}
