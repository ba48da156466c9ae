// The port of the operator's probe and metric queries (SQLite adapter: src/store/sqlite/operations-queries.ts).

export interface OperationsQueries {
  /** Throws when the database cannot answer (closed, unreadable). */
  ping(): Promise<void>;
  /** Legacy order requests still PENDING (the partial index legacy_requests_pending serves it). */
  legacyRequestsPending(): Promise<number>;
}
