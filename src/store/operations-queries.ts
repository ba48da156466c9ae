// The port of the operator's probe and metric queries (SQLite adapter: src/store/sqlite/operations-queries.ts).

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
}
