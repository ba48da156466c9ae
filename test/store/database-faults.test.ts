// The one classification of "the database cannot be reached" (src/store/database-faults.ts) on the
// shapes that do not need a server to make: SQLite's codes as better-sqlite3 reports them, Node's
// connect errors (one address, or several as an AggregateError), node-postgres's own messages, an
// error wrapped by a store, and which statements could commit (src/store/postgres/statement-outcomes.ts).
// Real PostgreSQL failures: test/store/postgres-database-faults.test.ts.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { databaseFaultOf, noteStatementOutcome } from "../../src/store/database-faults.js";
import { statementMayHaveCommitted } from "../../src/store/postgres/statement-outcomes.js";

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("database faults", () => {
  it("classifies SQLite's busy, locked, read-only and full as nothing done, an I/O error as unknown", () => {
    const outcomes = Object.fromEntries(
      [
        "SQLITE_BUSY",
        "SQLITE_BUSY_SNAPSHOT",
        "SQLITE_LOCKED",
        "SQLITE_READONLY",
        "SQLITE_FULL",
        "SQLITE_IOERR_FSYNC",
      ].map((code) => [code, databaseFaultOf(coded("database is locked", code))?.outcome]),
    );
    assert.deepEqual(outcomes, {
      SQLITE_BUSY: "nothing-done",
      SQLITE_BUSY_SNAPSHOT: "nothing-done",
      SQLITE_LOCKED: "nothing-done",
      SQLITE_READONLY: "nothing-done",
      SQLITE_FULL: "nothing-done",
      SQLITE_IOERR_FSYNC: "unknown",
    });
    assert.equal(databaseFaultOf(coded("constraint failed", "SQLITE_CONSTRAINT_PRIMARYKEY")), undefined);
    assert.equal(databaseFaultOf(coded("malformed", "SQLITE_CORRUPT")), undefined, "corruption is no blip");
  });

  it("reads a real SQLITE_BUSY from better-sqlite3 as nothing done", () => {
    const directory = mkdtempSync(join(tmpdir(), "predex-faults-"));
    const path = join(directory, "busy.sqlite");
    const holder = new Database(path);
    const other = new Database(path, { timeout: 0 });
    try {
      holder.exec("CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1);");
      let error: unknown;
      try {
        other.exec("INSERT INTO t VALUES (2)");
      } catch (caught) {
        error = caught;
      }
      assert.match(String((error as { code?: string }).code), /^SQLITE_BUSY/);
      assert.equal(databaseFaultOf(error)?.outcome, "nothing-done");
    } finally {
      other.close();
      holder.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("a connect that failed on every address is nothing done; one that failed on some is not a fault", () => {
    const refused = new AggregateError(
      [
        coded("connect ECONNREFUSED ::1:5432", "ECONNREFUSED"),
        coded("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
      ],
      "",
    );
    assert.equal(databaseFaultOf(refused)?.outcome, "nothing-done");
    assert.equal(databaseFaultOf(new AggregateError([new Error("other")], "")), undefined);
  });

  it("a connect error on a statement already sent is the statement's outcome, not 'nothing was done'", () => {
    // Linux reports an ICMP "host unreachable" met while retransmitting on a live connection as
    // that socket's error (EHOSTUNREACH, not ETIMEDOUT): a COMMIT in flight then fails with it.
    for (const code of ["EHOSTUNREACH", "ENETUNREACH", "ECONNREFUSED"]) {
      const atConnect = coded(`connect ${code} 10.0.0.5:5432`, code);
      assert.equal(databaseFaultOf(atConnect)?.outcome, "nothing-done", `${code} at connect`);
      const commitInFlight = coded(`read ${code}`, code);
      noteStatementOutcome(commitInFlight, true);
      assert.equal(databaseFaultOf(commitInFlight)?.outcome, "unknown", `${code} under a COMMIT`);
      const readInFlight = coded(`read ${code}`, code);
      noteStatementOutcome(readInFlight, false);
      assert.equal(databaseFaultOf(readInFlight)?.outcome, "nothing-done", `${code} under a read`);
    }
  });

  it("reads node-postgres's uncoded messages and looks through wrapping errors", () => {
    assert.equal(
      databaseFaultOf(new Error("timeout exceeded when trying to connect"))?.outcome,
      "nothing-done",
    );
    assert.equal(
      databaseFaultOf(new Error("Client has encountered a connection error and is not queryable"))?.outcome,
      "nothing-done",
    );
    const lost = new Error("Connection terminated unexpectedly");
    assert.equal(databaseFaultOf(lost)?.outcome, "unknown", "unnoted: never claim nothing was done");
    noteStatementOutcome(lost, false);
    assert.equal(databaseFaultOf(lost)?.outcome, "nothing-done");
    const wrapped = new Error("the store failed", {
      cause: coded("the database system is shutting down", "57P03"),
    });
    assert.equal(databaseFaultOf(wrapped)?.outcome, "nothing-done");
    assert.equal(databaseFaultOf(coded("transaction resolution unknown", "08007"))?.outcome, "unknown");
    assert.equal(databaseFaultOf(new Error("some bug")), undefined);
    assert.equal(databaseFaultOf(coded("duplicate key", "23505")), undefined);
  });

  it("tells which statements could commit when their connection breaks", () => {
    const may = (text: string, status: string | null = "I") => statementMayHaveCommitted(text, status);
    assert.equal(may("COMMIT"), true);
    assert.equal(may("commit", "T"), true);
    assert.equal(may("END"), true);
    assert.equal(may("INSERT INTO t VALUES (1)"), true);
    assert.equal(may("WITH x AS (INSERT INTO t VALUES (1) RETURNING 1) SELECT * FROM x"), true);
    assert.equal(may("SELECT pg_notify('c', '1')"), true);
    assert.equal(may("UPDATE t SET x = 1", "T"), false, "inside a transaction only COMMIT commits");
    assert.equal(may("SELECT * FROM t WHERE id = $1"), false);
    assert.equal(may("  select 1"), false);
    assert.equal(may("BEGIN"), false);
    assert.equal(may("ROLLBACK", "E"), false);
    assert.equal(may("SELECT * FROM t FOR UPDATE"), true, "a lock read counts as a write: never claim more");
  });
});
