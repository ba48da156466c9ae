// One engine leader at a time. The leader holds a session-level PostgreSQL advisory lock on a
// connection of its own and is granted a fencing epoch: the row in engine_leader, bumped by every
// takeover. The lock decides who may lead; the epoch makes it safe (engine-schema.ts refuses any
// write whose epoch is not the current one), because a lock alone cannot stop a leader that was
// paused while it held it and wakes after a takeover.
//
// Liveness: a leader that dies releases the lock with its connection (a killed process closes its
// socket at once; a lost machine is noticed by TCP keepalive). A leader that is paused keeps its
// socket alive, so it also renews a lease in engine_leader (on the database's clock, so nodes'
// clocks do not matter); a candidate that finds the lease expired ends the old leader's sessions
// (pg_terminate_backend: allowed between sessions of the same role) and takes the lock. Safety never
// depends on the lease: a wrongly-ended leader is only fenced.
//
// A candidate asks for the lock with pg_try_advisory_lock and looks again after a pause, so waiting
// writes nothing to the server's log (a lock_timeout on pg_advisory_lock logged an ERROR every
// slice). Every wait is bounded when the caller gives timeouts: a statement that does not answer
// (the server gone, or a commit waiting for a synchronous standby that is not there) ends the
// attempt, and a lock connection whose backend may still hold the lock is ended on the server too.

import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import type pg from "pg";
import { connectPostgresClient, type PostgresPool } from "./database.js";
import { engineMigrations } from "./engine-schema.js";
import { applyPostgresMigrations } from "./migrations.js";

/** The advisory-lock key of engine leadership: the ASCII of "predexld". */
export const leadershipLockKey = 0x7072656465786c64n;

/** application_name of every session of an engine node, so a successor can find and end them. */
export function engineApplicationName(nodeId: string): string {
  return `predex-engine:${nodeId}`;
}

/**
 * A node id unique enough to tell two processes on one machine apart. The host name is cut so that
 * the application_name built from it (and a term number after it) stays within PostgreSQL's 63
 * bytes: a longer one is cut by the server, and a successor looking for the node's sessions by name
 * would not find them.
 */
export function defaultNodeId(): string {
  return `${hostname().slice(0, 24)}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
}

export interface LeadershipOptions {
  readonly url: string;
  readonly nodeId: string;
  /** A leader that has not renewed its lease for this long may be ended by a candidate. */
  readonly leaseMs?: number;
  /** How often the leader renews its lease; well under leaseMs. */
  readonly renewEveryMs?: number;
  /** A candidate asks for the lock again after this long, and looks at the lease meanwhile. */
  readonly lockWaitSliceMs?: number;
  /** Gives up opening the lock's connection after this long. */
  readonly connectTimeoutMs?: number;
  /** Gives up on any statement of the lock's connection after this long (database.ts). */
  readonly statementTimeoutMs?: number;
  /** Stops a candidate that is still waiting. */
  readonly signal?: AbortSignal;
  /** Called once when the lease cannot be renewed or the lock's connection is lost. */
  readonly onLost?: (reason: Error) => void;
}

export const defaultLeaseMs = 5_000;
export const defaultRenewEveryMs = 1_000;
export const defaultLockWaitSliceMs = 500;

export interface Leadership {
  readonly nodeId: string;
  /** The fencing epoch every write of this leader carries. */
  readonly epoch: bigint;
  /** Resolves (never rejects) with the reason when this node is no longer leader. */
  readonly lost: Promise<Error>;
  readonly isHeld: () => boolean;
  /** Gives the lock back (the connection closes); the epoch stays until the next takeover bumps it. */
  release(): Promise<void>;
}

export interface LeaderRecord {
  readonly epoch: bigint;
  readonly nodeId: string | null;
  readonly leaseExpired: boolean;
}

export class LeadershipAbortedError extends Error {
  override readonly name = "LeadershipAbortedError";
}

const lockNotAvailable = "55P03";
const tryLockStatement = "SELECT pg_try_advisory_lock($1) AS locked";

/** Who leads now, as the database says. */
export async function readLeader(pool: PostgresPool | pg.Client): Promise<LeaderRecord> {
  const result = await pool.query<{ epoch: bigint; node_id: string | null; expired: boolean | null }>(
    "SELECT epoch, node_id, lease_expires_at < now() AS expired FROM engine_leader",
  );
  const row = result.rows[0]!;
  return { epoch: row.epoch, nodeId: row.node_id, leaseExpired: row.expired === true };
}

/** Ends every session of another engine node in this database (from a connection not its own). */
export async function endSessionsOf(client: pg.Client | PostgresPool, nodeId: string): Promise<number> {
  const result = await client.query<{ ended: boolean }>(
    `SELECT pg_terminate_backend(pid, 2000) AS ended FROM pg_stat_activity
     WHERE application_name = $1 AND datname = current_database() AND pid <> pg_backend_pid()`,
    [engineApplicationName(nodeId)],
  );
  return result.rowCount ?? 0;
}

function isLockTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === lockNotAvailable;
}

/**
 * Waits until this node holds the lock, then bumps the epoch and starts renewing the lease. The
 * engine's tables must exist: the caller passes the pool it migrates with.
 */
export async function acquireLeadership(pool: PostgresPool, options: LeadershipOptions): Promise<Leadership> {
  await applyPostgresMigrations(pool, "engine", engineMigrations);
  const leaseMs = options.leaseMs ?? defaultLeaseMs;
  const renewEveryMs = options.renewEveryMs ?? defaultRenewEveryMs;
  const sliceMs = options.lockWaitSliceMs ?? defaultLockWaitSliceMs;
  const client = await connectPostgresClient({
    url: options.url,
    applicationName: engineApplicationName(options.nodeId),
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
  });
  // Until the lock is held, a lost connection is simply an error of this call.
  const connectionErrors: Error[] = [];
  client.on("error", (error) => connectionErrors.push(error));
  let backendPid: number | undefined;
  let locked = false;
  try {
    backendPid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    for (;;) {
      if (options.signal?.aborted) throw new LeadershipAbortedError("Stopped waiting for leadership");
      const attempt = await client.query<{ locked: boolean }>(tryLockStatement, [leadershipLockKey]);
      if (attempt.rows[0]!.locked) break;
      const leader = await readLeader(client);
      if (leader.leaseExpired && leader.nodeId !== null && leader.nodeId !== options.nodeId) {
        await endSessionsOf(client, leader.nodeId);
      }
      try {
        await delay(sliceMs, undefined, options.signal === undefined ? {} : { signal: options.signal });
      } catch {
        throw new LeadershipAbortedError("Stopped waiting for leadership");
      }
    }
    locked = true;
    // The bump waits behind an append in flight a slice at a time (bumpEpoch).
    await client.query(`SET lock_timeout = ${Math.trunc(sliceMs)}`);
    const epoch = await bumpEpoch(client, options.nodeId, leaseMs);
    // Renewing may wait behind an append's share lock on the leader row, but never for a lease.
    await client.query(`SET lock_timeout = ${Math.trunc(leaseMs)}`);
    return holdLeadership(client, {
      pool,
      backendPid,
      nodeId: options.nodeId,
      epoch,
      leaseMs,
      renewEveryMs,
      onLost: options.onLost,
    });
  } catch (error) {
    await client.end().catch(() => {});
    // A statement given up on may still run on the server (a commit waiting for a synchronous
    // standby), its backend holding the lock: end it there, or nobody could take the lock.
    if (locked && backendPid !== undefined) await endBackend(pool, backendPid);
    throw error;
  }
}

/** Ends one backend (best effort: the database may be unreachable; then it goes with the server). */
export async function endBackend(pool: PostgresPool, pid: number): Promise<void> {
  await pool.query("SELECT pg_terminate_backend($1)", [pid]).catch(() => {});
}

/**
 * Takes the epoch. The UPDATE waits for any append still in flight under the old epoch (it holds the
 * leader row FOR SHARE); if the old leader is paused inside one, its sessions are ended.
 */
async function bumpEpoch(client: pg.Client, nodeId: string, leaseMs: number): Promise<bigint> {
  for (;;) {
    const before = await readLeader(client);
    try {
      const result = await client.query<{ epoch: bigint }>(
        `UPDATE engine_leader
         SET epoch = epoch + 1, node_id = $1, lock_backend_pid = pg_backend_pid(), acquired_at = now(),
             lease_expires_at = now() + $2 * interval '1 millisecond', advertised_url = NULL
         RETURNING epoch`,
        [nodeId, leaseMs],
      );
      return result.rows[0]!.epoch;
    } catch (error) {
      if (!isLockTimeout(error)) throw error;
      // We hold the lock, so whoever blocks us is a former leader: it is fenced once we commit.
      if (before.nodeId !== null && before.nodeId !== nodeId) await endSessionsOf(client, before.nodeId);
    }
  }
}

function holdLeadership(
  client: pg.Client,
  held: {
    /** Ends the lock's backend on the server when the lease is lost (see lose). */
    pool: PostgresPool;
    backendPid: number;
    nodeId: string;
    epoch: bigint;
    leaseMs: number;
    renewEveryMs: number;
    onLost: ((reason: Error) => void) | undefined;
  },
): Leadership {
  let lostReason: Error | undefined;
  let resolveLost!: (reason: Error) => void;
  const lost = new Promise<Error>((resolve) => {
    resolveLost = resolve;
  });
  let renewing: Promise<void> | undefined;

  const lose = (reason: Error) => {
    if (lostReason !== undefined) return;
    lostReason = reason;
    clearInterval(timer);
    client.end().catch(() => {});
    // A renewal given up on may still wait on the server (for a synchronous standby), its backend
    // holding the lock: end it there too.
    void endBackend(held.pool, held.backendPid);
    resolveLost(reason);
    held.onLost?.(reason);
  };

  const renew = async () => {
    try {
      const result = await client.query(
        `UPDATE engine_leader SET lease_expires_at = now() + $2 * interval '1 millisecond'
         WHERE epoch = $1 AND node_id = $3`,
        [held.epoch, held.leaseMs, held.nodeId],
      );
      if (result.rowCount !== 1) lose(new Error(`Leadership lost: the epoch moved past ${held.epoch}`));
    } catch (error) {
      lose(new Error("Leadership lost: the lease could not be renewed", { cause: error }));
    }
  };

  const timer = setInterval(() => {
    if (renewing !== undefined || lostReason !== undefined) return;
    renewing = renew().finally(() => {
      renewing = undefined;
    });
  }, held.renewEveryMs);
  timer.unref();
  client.removeAllListeners("error");
  client.on("error", (error) =>
    lose(new Error("Leadership lost: the lock's connection failed", { cause: error })),
  );
  client.on("end", () => lose(new Error("Leadership lost: the lock's connection closed")));
  // Renewed at once: the epoch bump's lease counts from the bump's start, and its commit may have
  // waited (for a synchronous standby to come back) long enough that a candidate would find it
  // expired the moment it shows, and end this leader's sessions.
  renewing = renew().finally(() => {
    renewing = undefined;
  });

  return {
    nodeId: held.nodeId,
    epoch: held.epoch,
    lost,
    isHeld: () => lostReason === undefined,
    async release() {
      if (lostReason !== undefined) return;
      clearInterval(timer);
      await renewing;
      lostReason = new Error("Leadership released");
      resolveLost(lostReason);
      await client.end().catch(() => {});
    },
  };
}
