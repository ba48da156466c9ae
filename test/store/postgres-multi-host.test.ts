// The database URL an operator's failover relies on, as libpq reads it: several hosts, and
// target_session_attrs=read-write to keep only a writable primary (src/store/postgres/
// database-target.ts). node-postgres alone refuses the host list ("Invalid URL") and ignores the
// attribute; here a pool on such a URL, against a real primary and its streaming replica (listed
// first), connects to the primary, and after the primary is lost and the replica promoted, to the
// replica. A lone read-only server is refused outright.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { NoAcceptableServerError, parseDatabaseTarget } from "../../src/store/postgres/database-target.js";
import {
  type PostgresCluster,
  type PostgresReplica,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";

describe("parsing a database URL the way libpq does", () => {
  it("leaves a URL node-postgres takes as it is to node-postgres", () => {
    assert.equal(parseDatabaseTarget("postgres://u:p@db:5432/predex"), undefined);
    assert.equal(parseDatabaseTarget("postgres://u@db/predex?target_session_attrs=any"), undefined);
  });

  it("reads every host and port, the user, the database and the other parameters", () => {
    const target = parseDatabaseTarget(
      "postgresql://predex:s%40cret@db-a:5433,db-b,[::1]:5434/predex?sslmode=disable&target_session_attrs=read-write",
    );
    assert.deepEqual(target, {
      hosts: [
        { host: "db-a", port: 5433 },
        { host: "db-b", port: 5432 },
        { host: "::1", port: 5434 },
      ],
      sessionAttributes: "read-write",
      baseUrl: "postgresql://predex:s%40cret@db-a:5433/predex?sslmode=disable",
    });
  });

  it("takes target_session_attrs on one host too, and refuses the attributes predex cannot write through", () => {
    assert.deepEqual(parseDatabaseTarget("postgres://db:6000/x?target_session_attrs=primary")?.hosts, [
      { host: "db", port: 6000 },
    ]);
    assert.throws(
      () => parseDatabaseTarget("postgres://a,b/x?target_session_attrs=standby"),
      /not supported/,
    );
    assert.throws(() => parseDatabaseTarget("postgres://a,,b/x"), /needs a name/);
  });
});

describe("a multi-host URL against a primary and its promoted replica", {
  skip: postgresSkipReason(),
}, () => {
  let primary: PostgresCluster;
  let replica: PostgresReplica;
  const pools: PostgresPool[] = [];

  before(async () => {
    primary = await startPostgresCluster();
    await primary.createDatabase("multihost");
    replica = await primary.startReplica({ synchronous: false });
  });
  after(async () => {
    for (const pool of pools) await pool.end();
    await replica?.stop();
    await primary?.stop();
  });

  const poolFor = (url: string) => {
    const pool = openPostgresPool({ url, applicationName: "predex-test-multihost", connectTimeoutMs: 2_000 });
    pools.push(pool);
    return pool;
  };
  const serverPort = async (pool: PostgresPool) => {
    const result = await pool.query<{ port: number; recovering: boolean; read_only: string }>(
      "SELECT inet_server_port() AS port, pg_is_in_recovery() AS recovering, current_setting('transaction_read_only') AS read_only",
    );
    return result.rows[0]!;
  };

  it("keeps only the writable primary, whatever the order of the list, and follows a promotion", async () => {
    // The replica first: libpq with read-write skips it; node-postgres alone would write to it.
    const url = `postgres://postgres@127.0.0.1:${replica.port},127.0.0.1:${primary.port}/multihost?target_session_attrs=read-write`;
    const pool = poolFor(url);
    assert.deepEqual(await serverPort(pool), { port: primary.port, recovering: false, read_only: "off" });
    await pool.query("CREATE TABLE written (by text)");
    await pool.query("INSERT INTO written VALUES ('before')");

    // A lone standby with read-write is refused, as libpq refuses it.
    const standbyOnly = poolFor(
      `postgres://postgres@127.0.0.1:${replica.port}/multihost?target_session_attrs=read-write`,
    );
    await assert.rejects(standbyOnly.query("SELECT 1"), /read-only/);

    // The primary is lost and the replica promoted: the same URL now leads to the replica.
    await primary.shutdown("immediate");
    // Connections to the old primary are gone; until the promotion nothing on the list is writable.
    await assert.rejects(
      (async () => {
        for (;;) await pool.query("SELECT 1");
      })(),
    );
    await assert.rejects(poolFor(url).query("SELECT 1"), NoAcceptableServerError);
    await replica.promote();
    let after: Awaited<ReturnType<typeof serverPort>> | undefined;
    for (let attempt = 0; after === undefined && attempt < 5; attempt += 1) {
      // The first connection after a loss may still be given the remembered (dead) host.
      after = await serverPort(pool).catch(() => undefined);
    }
    assert.deepEqual(after, { port: replica.port, recovering: false, read_only: "off" });
    await pool.query("INSERT INTO written VALUES ('after')");
    const rows = await pool.query<{ by: string }>("SELECT by FROM written ORDER BY by");
    assert.deepEqual(
      rows.rows.map((row) => row.by),
      ["after", "before"],
    );
  });
});
