// The database's own errors, classified (src/store/database-faults.ts, with the statement notes of
// src/store/postgres/statement-outcomes.ts): a real server refuses, ends sessions mid-statement
// (pg_terminate_backend, as a fast shutdown does to every session) and turns read-only, and each
// failure says truthfully what became of the write: nothing was done, or nobody can tell (a COMMIT
// or a write outside a transaction that was in flight when the connection broke).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { databaseFaultOf } from "../../src/store/database-faults.js";
import { inTransaction, openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { freeLoopbackPort } from "../support/loopback-port.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";

const skipReason = postgresSkipReason();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("PostgreSQL faults: what became of the statement", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  let url: string;
  let pool: PostgresPool;
  let admin: PostgresPool;
  before(async () => {
    cluster = await startPostgresCluster();
    url = await cluster.createDatabase("faults");
    pool = openPostgresPool({ url, applicationName: "predex-faults-victim" });
    admin = openPostgresPool({ url, applicationName: "predex-faults-admin" });
    await admin.query(`CREATE TABLE items (id integer PRIMARY KEY);
      CREATE FUNCTION slow_check() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN PERFORM pg_sleep(30); RETURN NULL; END $$;
      CREATE TABLE slow_commits (id integer PRIMARY KEY);
      -- Runs at COMMIT: a commit that takes long enough to be cut off while in flight.
      CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON slow_commits
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_check();`);
  });
  after(async () => {
    await pool?.end();
    await admin?.end();
    await cluster?.stop();
  });

  /** Ends the victim pool's session once its statement is running (what a fast shutdown does). */
  const terminateWhileRunning = async (statementLike: string) => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = 'predex-faults-victim' AND state = 'active' AND query ILIKE $1`,
        [`%${statementLike}%`],
      );
      if ((rowCount ?? 0) > 0) return;
      await sleep(25);
    }
    throw new Error(`no running statement like ${statementLike}`);
  };

  const failureOf = async (work: Promise<unknown>) => {
    try {
      await work;
    } catch (error) {
      return error;
    }
    throw new Error("the statement succeeded");
  };

  it("a server that is not there: nothing was done", async () => {
    const nowhere = openPostgresPool({
      url: `postgres://postgres@127.0.0.1:${await freeLoopbackPort()}/faults`,
      applicationName: "predex-faults-nowhere",
    });
    try {
      const error = await failureOf(nowhere.query("INSERT INTO items VALUES (1)"));
      assert.deepEqual(databaseFaultOf(error)?.outcome, "nothing-done", String(error));
    } finally {
      await nowhere.end();
    }
  });

  it("a read cut off: nothing was done", async () => {
    const read = pool.query("SELECT pg_sleep(30)");
    // Heard at once: the rejection may come before the termination is confirmed.
    const failed = failureOf(read);
    await terminateWhileRunning("pg_sleep(30)");
    const error = await failed;
    assert.equal((error as { code?: string }).code, "57P01");
    assert.equal(databaseFaultOf(error)?.outcome, "nothing-done");
  });

  it("a write outside a transaction cut off: the outcome is unknown", async () => {
    const write = pool.query("INSERT INTO items SELECT 2 FROM pg_sleep(30)");
    // Heard at once: the rejection may come before the termination is confirmed.
    const failed = failureOf(write);
    await terminateWhileRunning("INSERT INTO items SELECT 2");
    const error = await failed;
    assert.equal(databaseFaultOf(error)?.outcome, "unknown");
  });

  it("a transaction cut off before its COMMIT: nothing was done, and nothing is there", async () => {
    const work = inTransaction(pool, async (client) => {
      await client.query("INSERT INTO items VALUES (3)");
      await client.query("SELECT 3 FROM pg_sleep(30)");
    });
    // Heard at once: the rejection may come before the termination is confirmed.
    const failed = failureOf(work);
    await terminateWhileRunning("SELECT 3 FROM pg_sleep(30)");
    const error = await failed;
    assert.equal(databaseFaultOf(error)?.outcome, "nothing-done");
    assert.equal((await admin.query("SELECT 1 FROM items WHERE id = 3")).rowCount, 0);
  });

  it("a transaction cut off while its COMMIT runs: the outcome is unknown", async () => {
    const work = inTransaction(pool, async (client) => {
      await client.query("INSERT INTO slow_commits VALUES (4)");
    });
    // Heard at once: the rejection may come before the termination is confirmed.
    const failed = failureOf(work);
    await terminateWhileRunning("COMMIT");
    const error = await failed;
    assert.equal(databaseFaultOf(error)?.outcome, "unknown");
  });

  it("a read-only database refuses the write: nothing was done", async () => {
    const readOnly = openPostgresPool({
      url: `${url}?options=${encodeURIComponent("-c default_transaction_read_only=on")}`,
      applicationName: "predex-faults-read-only",
    });
    try {
      const error = await failureOf(readOnly.query("INSERT INTO items VALUES (5)"));
      assert.equal((error as { code?: string }).code, "25006");
      assert.equal(databaseFaultOf(error)?.outcome, "nothing-done");
    } finally {
      await readOnly.end();
    }
  });

  it("an answer of the database that is not a fault stays what it is", async () => {
    await admin.query("INSERT INTO items VALUES (6)");
    const duplicate = await failureOf(pool.query("INSERT INTO items VALUES (6)"));
    assert.equal(databaseFaultOf(duplicate), undefined);
    const syntax = await failureOf(pool.query("SELEC 1"));
    assert.equal(databaseFaultOf(syntax), undefined);
  });
});
