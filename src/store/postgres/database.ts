// Connections to PostgreSQL through `pg` (node-postgres; chosen over `postgres` by bench:pg-driver,
// see docs/decisions.md). Every connection commits durably (synchronous_commit=on, whatever the
// server's default), hands 64-bit integers back as bigint, and names its node in application_name,
// so an operator (and a taking-over standby) can see whose session is whose in pg_stat_activity.
// A URL with several hosts or target_session_attrs connects as libpq would (database-target.ts).
// Waits can be bounded: opening a connection (connectTimeoutMs) and each statement's answer
// (statementTimeoutMs); an engine node bounds both, so no fault of the database stalls it for good.

import pg from "pg";
import {
  checkSessionAttributes,
  type DatabaseTarget,
  HostChooser,
  parseDatabaseTarget,
} from "./database-target.js";
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
   * force_custom_plan), never with a cached generic plan. For connections whose batch statements
   * carry read-model writes: they bind whole columns as arrays, whose length a generic plan cannot
   * know (it guesses 100 rows), and a generic plan made while the tables were small joins them by
   * scanning a whole table for as long as the plan is kept (docs/decisions.md "The batch statement:
   * binary arrays, prepared once, planned each time"). An engine node's commits no longer carry any
   * (the read models follow the journal in steps), so its connections do not set it (i31-pg2).
   */
  readonly customPlansOnly?: boolean;
  /**
   * Plan each prepared statement once per connection (plan_cache_mode force_generic_plan), never
   * for its parameters. For the gateway nonces' own connections: their one statement costs more to
   * plan for each batch than to run, and touches its tables by primary key only, so a plan that
   * does not know the batch's size is as good (docs/decisions.md, i31-pg).
   */
  readonly genericPlansOnly?: boolean;
  /**
   * Gives up opening a connection after this long (per host of a multi-host URL). Unset: the
   * operating system's TCP timeouts, except that probing a multi-host URL's hosts waits at most
   * defaultConnectTimeoutMs.
   */
  readonly connectTimeoutMs?: number;
  /**
   * Gives up waiting for a statement's answer after this long: the caller gets an error (the
   * statement's outcome is unknown to it) and the connection is dropped, never reused. Waited on
   * the client, never with the server's statement_timeout: a cancelled wait for synchronous
   * replication would answer COMMIT as if it had succeeded. A statement may carry its own
   * `query_timeout`. Unset: as long as it takes.
   */
  readonly statementTimeoutMs?: number;
}

/** How long a probe of a multi-host URL's host waits for it when no connect timeout is set. */
export const defaultConnectTimeoutMs = 5_000;

/** Session settings sent in the startup packet, so every pooled connection has them from the start. */
export function sessionOptions(options: {
  idleInTransactionTimeoutMs?: number | undefined;
  customPlansOnly?: boolean | undefined;
  genericPlansOnly?: boolean | undefined;
}): string {
  const settings = ["synchronous_commit=on"];
  if (options.idleInTransactionTimeoutMs !== undefined) {
    settings.push(`idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs}`);
  }
  if (options.customPlansOnly === true) settings.push("plan_cache_mode=force_custom_plan");
  if (options.genericPlansOnly === true) settings.push("plan_cache_mode=force_generic_plan");
  return settings.map((setting) => `-c ${setting}`).join(" ");
}

/**
 * The settings of every connection for `options`. For a multi-host URL (or target_session_attrs)
 * they carry the Client class that chooses the host: pools use it, and so does newPostgresClient.
 */
export function connectionConfig(options: PostgresConnectionOptions): pg.PoolConfig {
  const target = parseDatabaseTarget(options.url);
  const config: pg.PoolConfig = {
    connectionString: target?.baseUrl ?? options.url,
    application_name: options.applicationName,
    options: sessionOptions(options),
    types: bigintTypes,
    // The kernel notices a dead peer (a machine gone, not just a process) without waiting hours.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: options.connectTimeoutMs }),
    ...(options.statementTimeoutMs === undefined ? {} : { query_timeout: options.statementTimeoutMs }),
  };
  if (target === undefined) return config;
  return { ...config, Client: targetedClientClass(target, config) };
}

/** A client with a pool's (or connectionConfig's) settings, outside any pool: LISTEN connections. */
export function newPostgresClient(config: pg.PoolConfig): pg.Client {
  const Client = (config.Client as typeof pg.Client | undefined) ?? pg.Client;
  return new Client(config);
}

/** One chooser per list of hosts: every connection of the process learns where the primary is. */
const hostChoosers = new Map<string, HostChooser>();

/**
 * A node-postgres Client that connects to the host its URL's chooser picks, then checks that the
 * server is what target_session_attrs asks for; a failed or unacceptable host is forgotten, so the
 * next connection probes the list again (the caller's own retry).
 */
function targetedClientClass(target: DatabaseTarget, config: pg.ClientConfig): typeof pg.Client {
  const key = JSON.stringify([target.hosts, target.sessionAttributes]);
  let chooser = hostChoosers.get(key);
  if (chooser === undefined) {
    chooser = new HostChooser(target, async (host) => {
      const probe = new pg.Client({
        ...config,
        connectionTimeoutMillis: config.connectionTimeoutMillis ?? defaultConnectTimeoutMs,
      });
      probe.host = host.host;
      probe.port = host.port;
      // A failure reaches connect()'s caller; unheard, an 'error' event would end the process.
      probe.on("error", () => {});
      await probe.connect();
      return probe;
    });
    hostChoosers.set(key, chooser);
  }
  const chosen = chooser;
  return class TargetedClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: (error: Error | null, client?: pg.Client) => void): void;
    override connect(
      callback?: (error: Error | null, client?: pg.Client) => void,
    ): Promise<pg.Client> | undefined {
      const connecting = this.#connectToChosenHost();
      if (callback === undefined) return connecting;
      connecting.then(
        (client) => callback(null, client),
        (error: Error) => callback(error),
      );
      return undefined;
    }

    async #connectToChosenHost(): Promise<pg.Client> {
      const host = await chosen.choose();
      this.host = host.host;
      this.port = host.port;
      // Until the caller (a pool) listens, a connection lost during the check would be an 'error'
      // event nobody hears, which ends the process; the check's query fails with it instead.
      const unheard = () => {};
      this.on("error", unheard);
      try {
        await super.connect();
        await checkSessionAttributes(this, target.sessionAttributes, host);
      } catch (error) {
        chosen.failed(host);
        await this.end().catch(() => {});
        throw error;
      } finally {
        this.off("error", unheard);
      }
      chosen.accepted(host);
      return this;
    }
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
  const client = newPostgresClient(connectionConfig(options));
  noteStatementOutcomes(client);
  try {
    await client.connect();
  } catch (error) {
    // A connect timeout destroys the socket; end() makes sure nothing is left half open.
    await client.end().catch(() => {});
    throw error;
  }
  return client;
}

/**
 * Resolves once the database answers (a connection and `SELECT 1`), trying again after a pause
 * that doubles from 100 ms to 1 s; `onWaiting` hears each failed attempt. A node started while its
 * database is away waits for it instead of exiting.
 */
export async function waitForPostgres(
  options: PostgresConnectionOptions,
  onWaiting: (error: unknown, attempt: number) => void,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const client = await connectPostgresClient({
        connectTimeoutMs: 5_000,
        statementTimeoutMs: 5_000,
        ...options,
      });
      try {
        await client.query("SELECT 1");
        return;
      } finally {
        await client.end().catch(() => {});
      }
    } catch (error) {
      onWaiting(error, attempt);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(100 * 2 ** Math.min(attempt - 1, 16), 1_000)),
      );
    }
  }
}

/**
 * Runs `work` inside BEGIN … COMMIT on one pooled connection; ROLLBACK if it throws. `commitTimeoutMs`
 * bounds the COMMIT instead of the connection's statement timeout (a large transaction's commit may
 * wait long for a synchronous standby to receive it).
 */
export async function inTransaction<T>(
  pool: PostgresPool,
  work: (client: PostgresClient) => Promise<T>,
  options: { readonly commitTimeoutMs?: number } = {},
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
    // (node-postgres reads query_timeout from the statement; its types do not list it.)
    const commit =
      options.commitTimeoutMs === undefined
        ? "COMMIT"
        : { text: "COMMIT", query_timeout: options.commitTimeoutMs };
    await client.query(commit);
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
