// Notes on every failed statement whether it could have committed something (src/store/database-faults.ts
// "noteStatementOutcome"), so that a connection that breaks under it is answered truthfully: a read,
// or a statement inside a transaction before its COMMIT, did nothing ("try again later", 502/2002);
// a COMMIT, or a write outside a transaction, may have made it durable (an unknown outcome,
// 504/2001). node-postgres's error does not say which statement it was; the connection does, so
// every connection's `query` is wrapped once, where pools and dedicated clients are made
// (database.ts). Cursors and other submittables pass through unnoted (counted as "may have").

import type pg from "pg";
import { noteStatementOutcome } from "../database-faults.js";

/** COMMIT and its synonyms (END; COMMIT PREPARED of a two-phase transaction). */
const commitStatement = /^\s*(commit|end)\b/i;
/** Statements that write nothing by themselves (transaction control, settings, plain reads). */
const quietStatement =
  /^\s*(select|show|values|table|begin|start\s+transaction|rollback|abort|savepoint|release|set|reset|listen|unlisten|explain|fetch|close|deallocate|discard)\b/i;
/** Words that make even a SELECT write (a data-modifying CTE, a function with effects, a lock). */
const writingWords =
  /\b(insert|update|delete|merge|nextval|setval|notify|pg_notify|pg_advisory|copy|truncate|create|alter|drop|vacuum|refresh|call|for\s+share)\b/i;

/**
 * Whether a statement failing on a broken connection may still have committed something: its text,
 * and whether it was sent inside a transaction ('T', or 'E' for a failed one), where nothing is
 * durable before the COMMIT.
 */
export function statementMayHaveCommitted(text: string, transactionStatus: string | null): boolean {
  if (commitStatement.test(text)) return true;
  if (transactionStatus === "T" || transactionStatus === "E") return false;
  return !(quietStatement.test(text) && !writingWords.test(text));
}

type Callback = (error: Error | null, result?: unknown) => void;

/** Wraps `client.query` so that each failed statement carries its noted outcome. Idempotent. */
export function noteStatementOutcomes(client: pg.ClientBase): void {
  const marked = client as pg.ClientBase & { predexNotesOutcomes?: true };
  if (marked.predexNotesOutcomes === true) return;
  marked.predexNotesOutcomes = true;
  // The method is looked up on each call, not bound once: instrumentation that patches
  // pg.Client.prototype.query later (a tracer, a test that watches statements) still sees every query.
  const ownQuery = Object.hasOwn(client, "query")
    ? (client.query as (...args: unknown[]) => unknown)
    : undefined;
  const query = (...args: unknown[]): unknown =>
    (ownQuery ?? (Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown }).query).apply(
      client,
      args,
    );
  const transactionStatus = () =>
    (client as { getTransactionStatus?: () => string | null }).getTransactionStatus?.() ?? null;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const config = args[0];
    const text =
      typeof config === "string"
        ? config
        : typeof config === "object" && config !== null && !("submit" in config)
          ? (config as { text?: unknown }).text
          : undefined;
    if (typeof text !== "string") return query(...args);
    // The status is the connection's as the statement is sent; the text is read only on a failure.
    const status = transactionStatus();
    const note = (error: unknown) => noteStatementOutcome(error, statementMayHaveCommitted(text, status));
    const callbackAt = args.findIndex((arg) => typeof arg === "function");
    if (callbackAt !== -1) {
      const callback = args[callbackAt] as Callback;
      args[callbackAt] = ((error, result) => {
        if (error) note(error);
        callback(error, result);
      }) satisfies Callback;
      return query(...args);
    }
    return (query(...args) as Promise<unknown>).catch((error: unknown) => {
      note(error);
      throw error;
    });
  };
}
