// Connections to PostgreSQL through `pg` (node-postgres; chosen over `postgres` by bench:pg-driver,
// see docs/decisions.md). Every connection commits durably (synchronous_commit=on, whatever the
// server's default), hands 64-bit integers back as bigint, and names its node in application_name,
// so an operator (and a taking-over standby) can see whose session is whose in pg_stat_activity.

import pg from "pg";
import { noteStatementOutcomes } from "./statement-outcomes.js";

export type PostgresPool = pg.Pool;
export type PostgresClient = pg.PoolClient;

const int8Oid = 20;

/** int8 as bigint: sequences, epochs and money atoms never pass through a float. */
const bigintTypes: pg.CustomTypesConfig = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === int8Oid) return (text: string) => BigInt(text);
    // biome-ignore lint/suspicious/noExplicitAny: pg's own overloads take the format as any
    return pg.types.getTypeParser(oid, format as any);
  },
};

export interface PostgresConnectionOptions {
  readonly url: string;
  /** Shown in pg_stat_activity; a standby taking over finds the old leader's sessions by it. */
  readonly applicationName: string;
  readonly poolConnectionsMax?: number;
  /**
   * The server ends a session that sits inside a transaction doing nothing for this long, so a
   * paused (SIGSTOPped) process cannot hold row locks that a takeover waits for. 0 turns it off.
   */
  readonly idleInTransactionTimeoutMs?: number;
  /**
   * Plan every execution of a prepared statement for its parameters (plan_cache_mode
   * force_custom_plan), never with a cached generic plan. For the engine's connections: its writes
   * bind whole columns as arrays, whose length a generic plan cannot know (it guesses 100 rows), and
   * a generic plan made while the tables were small joins them by scanning a whole table for as long
   * as the plan is kept (docs/decisions.md "The batch statement: binary arrays, prepared once,
   * planned each time").
   */
  readonly customPlansOnly?: boolean;
}

/** Session settings sent in the startup packet, so every pooled connection has them from the start. */
export function sessionOptions(options: {
  idleInTransactionTimeoutMs?: number | undefined;
  customPlansOnly?: boolean | undefined;
}): string {
  const settings = ["synchronous_commit=on"];
  if (options.idleInTransactionTimeoutMs !== undefined) {
    settings.push(`idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs}`);
  }
  if (options.customPlansOnly === true) settings.push("plan_cache_mode=force_custom_plan");
  return settings.map((setting) => `-c ${setting}`).join(" ");
}

export function connectionConfig(options: PostgresConnectionOptions): pg.ClientConfig {
  return {
    connectionString: options.url,
    application_name: options.applicationName,
    options: sessionOptions(options),
    types: bigintTypes,
    // The kernel notices a dead peer (a machine gone, not just a process) without waiting hours.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

export function openPostgresPool(options: PostgresConnectionOptions): PostgresPool {
  const pool = new pg.Pool({ ...connectionConfig(options), max: options.poolConnectionsMax ?? 10 });
  // An idle pooled connection that the server ends (a restart, an operator's pg_terminate_backend)
  // emits 'error' on the pool; without a listener that would crash the process. The next query
  // simply gets a fresh connection.
  pool.on("error", () => {});
  // Each failed statement says whether it could have committed (a broken connection's answer).
  pool.on("connect", noteStatementOutcomes);
  return pool;
}

/** One dedicated connection, outside any pool (leadership holds its lock on one). */
export async function connectPostgresClient(options: PostgresConnectionOptions): Promise<pg.Client> {
  const client = new pg.Client(connectionConfig(options));
  noteStatementOutcomes(client);
  await client.connect();
  return client;
}

/** Runs `work` inside BEGIN … COMMIT on one pooled connection; ROLLBACK if it throws. */
export async function inTransaction<T>(
  pool: PostgresPool,
  work: (client: PostgresClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // A connection the server ends while it is checked out (pg_terminate_backend by a successor or an
  // operator, a restart) emits 'error' on the client; unheard, that would crash the process. The
  // failure reaches the caller through the query in flight or the next one instead.
  const onConnectionError = () => {
    broken = true;
  };
  client.on("error", onConnectionError);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    try {
      await client.query("ROLLBACK");
    } catch {
      // The connection itself failed: do not give it back to the pool.
      broken = true;
    }
    throw error;
  } finally {
    client.off("error", onConnectionError);
    client.release(broken);
  }
}
