// The port of the operator's probe and metric queries (SQLite adapter: src/store/sqlite/operations-queries.ts).

import { sql } from "./sql.js";

/** The engine leader as the database records it (PostgreSQL, where engine nodes take turns). */
export interface EngineLeaderLease {
  /** The fencing epoch (0 before any node has led). */
  readonly epoch: bigint;
  /** A leader has advertised its command port and its lease has not run out. */
  readonly live: boolean;
}

export interface OperationsQueries {
  /** Throws when the database cannot answer (closed, unreadable). */
  ping(): Promise<void>;
  /**
   * The engine leader's lease; undefined where the engine runs in this process and nowhere else
   * (SQLite). Throws when the database cannot answer.
   */
  engineLeader(): Promise<EngineLeaderLease | undefined>;
  /** Legacy order requests still PENDING (the partial index legacy_requests_pending serves it). */
  legacyRequestsPending(): Promise<number>;
  /**
   * Whether the database replicates synchronously (src/store/postgres/replication-status.ts);
   * absent where there is no replication to speak of (the embedded SQLite file).
   */
  replication?(): Promise<ReplicationStatus>;
}

export interface ReplicationStatus {
  /** A commit is acknowledged only once a synchronous standby has it. */
  readonly synchronous: boolean;
  /** synchronous_standby_names as the primary has it ("" when none). */
  readonly synchronousStandbyNames: string;
  /** synchronous_commit as predex's sessions run. */
  readonly synchronousCommit: string;
  /** Streaming standbys connected; undefined when this database role may not see them. */
  readonly standbys: number | undefined;
  /** Of those, the ones that count for synchronous commit (sync or quorum). */
  readonly synchronousStandbys: number | undefined;
  /** What the operator must know (without synchronous replication a failover may lose acknowledged orders). */
  readonly warning?: string;
}

/** What both adapters ask alike; the engine leader's lease is PostgreSQL's own (advisory locks). */
export const operationsStatements = {
  ping: sql<void>`SELECT 1`,
  legacyRequestsPending: sql<void>`SELECT count(*) AS count FROM legacy_requests WHERE status = 'PENDING'`,
};
