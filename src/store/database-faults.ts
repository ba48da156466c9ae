// "The database cannot be reached right now" told apart from every other failure, once, for every
// adapter: a restart, a stop, a failover, a read-only spell or a full disk is a passing condition
// that the surfaces answer as try-again-later (with Retry-After), never as a 500. What the value says
// is what happened to the request's write, as precisely as the error lets us tell
// (docs/decisions.md "Database unreachable"):
//
// - "nothing-done": the statement never ran or cannot have committed: no connection was made (refused,
//   unknown host, the pool's connect timeout, "the database system is starting up / shutting down"),
//   the server refused it (read-only transaction, too many connections, a deadlock or serialization
//   failure, which roll back), or the connection broke before COMMIT inside a transaction or while a
//   read ran.
// - "unknown": the connection broke while a COMMIT, or a write outside a transaction, was in flight:
//   the server may have made it durable before it went away.
//
// How the connection broke is in the error; which statement was in flight is not: the PostgreSQL
// adapter notes it on the error (noteStatementOutcome, src/store/postgres/statement-outcomes.ts).
// A broken connection that nobody noted counts as "unknown", the answer that is never a lie.

export type DatabaseFaultOutcome = "nothing-done" | "unknown";

export interface DatabaseFault {
  readonly outcome: DatabaseFaultOutcome;
  /** What the database said (the driver's code and message), for the log. */
  readonly detail: string;
}

/** How a failure relates to the statement that met it. */
type FaultKind =
  /** The statement never reached the server, or the server refused it: it did nothing. */
  | "refused"
  /**
   * A socket error of connecting. Met by a connect, nothing was sent. Met by a statement already
   * sent, it is that connection's error: Linux reports an ICMP "unreachable" met while
   * retransmitting as the live socket's error instead of ETIMEDOUT. The statement then noted
   * whether it could have committed, and that decides, as for "lost".
   */
  | "unreachable"
  /** The connection broke with the statement in flight: its fate depends on what it was. */
  | "lost"
  /** The server itself says the transaction's fate is unknown. */
  | "unknown";

/** Node's socket errors of connecting (see "unreachable"). */
const connectErrnos: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EADDRNOTAVAIL",
]);
/** Node's socket errors on a live connection. */
const lostErrnos: ReadonlySet<string> = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);

/**
 * PostgreSQL's SQLSTATEs (appendix A of its manual) that mean "not now", by what they say of the
 * statement. Constraint violations, syntax errors and the like are not here: those are bugs or
 * answers, and stay what they are.
 */
const postgresStates: Readonly<Record<string, FaultKind>> = {
  "57P03": "refused", // cannot_connect_now: starting up, shutting down, in recovery
  "53300": "refused", // too_many_connections
  "53100": "refused", // disk_full: the statement failed (a failed WAL flush at commit is a PANIC: "lost")
  "53200": "refused", // out_of_memory
  "08001": "refused", // sqlclient_unable_to_establish_sqlconnection
  "08004": "refused", // sqlserver_rejected_establishment_of_sqlconnection
  "25006": "refused", // read_only_sql_transaction: a standby, or default_transaction_read_only
  "40001": "refused", // serialization_failure: rolled back
  "40P01": "refused", // deadlock_detected: rolled back
  "57P01": "lost", // admin_shutdown: a fast shutdown, pg_terminate_backend
  "57P02": "lost", // crash_shutdown: another backend crashed
  "08000": "lost", // connection_exception
  "08003": "lost", // connection_does_not_exist
  "08006": "lost", // connection_failure
  "08007": "unknown", // transaction_resolution_unknown
  "40003": "unknown", // statement_completion_unknown
};

/** node-postgres's own errors, which carry no code, by the start of their message. */
const driverMessages: readonly (readonly [RegExp, FaultKind])[] = [
  [/^timeout exceeded when trying to connect/i, "refused"], // pg-pool's connectionTimeoutMillis
  [/^Connection terminated due to connection timeout/i, "refused"], // pg's connectionTimeoutMillis
  [/is not queryable/i, "refused"], // a query on a client already broken: never sent
  [/^Connection terminated/i, "lost"],
  [/^Query read timeout/i, "lost"],
];

/**
 * SQLite's (better-sqlite3's `code`, extended codes included). A busy or locked database past the
 * busy timeout, a read-only or unopenable file and a full disk leave the statement undone (SQLite
 * rolls the statement back); an I/O error may strike during a commit.
 */
function sqliteKind(code: string): FaultKind | undefined {
  if (/^SQLITE_(BUSY|LOCKED|READONLY|CANTOPEN|FULL)(_|$)/.test(code)) return "refused";
  if (/^SQLITE_IOERR(_|$)/.test(code)) return "lost";
  return undefined;
}

const mayHaveCommittedKey = Symbol("predex.statementMayHaveCommitted");

/**
 * Notes on a failed statement's error whether that statement could have made something durable: a
 * COMMIT, or a write outside a transaction. Adapters call it where they still know the statement.
 */
export function noteStatementOutcome(error: unknown, mayHaveCommitted: boolean): void {
  if (typeof error !== "object" || error === null || !Object.isExtensible(error)) return;
  // The first note wins: an error handed up through several layers keeps its statement's.
  if (mayHaveCommittedKey in error) return;
  Object.defineProperty(error, mayHaveCommittedKey, { value: mayHaveCommitted, enumerable: false });
}

/** The fault `error` (or an error it wraps) is, when the database cannot be reached; else undefined. */
export function databaseFaultOf(error: unknown): DatabaseFault | undefined {
  for (let depth = 0, current = error; depth < 5 && current !== undefined && current !== null; depth++) {
    const kind = kindOf(current);
    if (kind !== undefined) return { outcome: outcomeOf(kind, error, current), detail: detailOf(current) };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function kindOf(error: unknown): FaultKind | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (connectErrnos.has(code)) return "unreachable";
    if (lostErrnos.has(code)) return "lost";
    const postgres = postgresStates[code];
    if (postgres !== undefined) return postgres;
    const sqlite = code.startsWith("SQLITE_") ? sqliteKind(code) : undefined;
    if (sqlite !== undefined) return sqlite;
  }
  // Node reports a connect that tried several addresses (localhost: ::1 and 127.0.0.1) as one
  // AggregateError; it failed to connect only if every attempt did.
  if (error instanceof AggregateError && error.errors.length > 0) {
    const kinds = error.errors.map(kindOf);
    if (kinds.every((kind) => kind === "unreachable")) return "unreachable";
  }
  if (error instanceof Error && typeof code !== "string") {
    for (const [pattern, kind] of driverMessages) if (pattern.test(error.message)) return kind;
  }
  return undefined;
}

function outcomeOf(kind: FaultKind, outer: unknown, inner: unknown): DatabaseFaultOutcome {
  if (kind === "refused") return "nothing-done";
  if (kind === "unknown") return "unknown";
  const noted = notedOf(inner) ?? notedOf(outer);
  // A connect that failed went through no statement, so nothing noted it: nothing was sent.
  if (kind === "unreachable") return noted === true ? "unknown" : "nothing-done";
  // The connection broke: only a statement that could commit may have done something.
  return noted === false ? "nothing-done" : "unknown";
}

function notedOf(error: unknown): boolean | undefined {
  if (typeof error !== "object" || error === null || !(mayHaveCommittedKey in error)) return undefined;
  return (error as { [mayHaveCommittedKey]: boolean })[mayHaveCommittedKey];
}

function detailOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? `${code}: ${message}` : message;
}
