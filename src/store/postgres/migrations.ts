// Schema migrations on PostgreSQL: the SQLite runner's shape (src/store/sqlite/database.ts
// applyMigrations: each module brings its own numbered list, so two modules never both write
// "version 7"), made safe for several nodes starting at once. PostgreSQL runs DDL inside
// transactions, so one module's pending migrations and their records commit together or not at all,
// and a transaction-scoped advisory lock makes a second node wait, then find them applied.
// Why not node-pg-migrate or umzug: docs/decisions.md ("PostgreSQL migrations").

import { inTransaction, type PostgresPool } from "./database.js";

/**
 * The advisory-lock key every migrating node takes (any 64-bit constant, distinct from the engine's
 * leadership key): the ASCII of "predexmg".
 */
export const migrationLockKey = 0x7072656465786d67n;

/** How long one migration's SQL may run (a migration may rewrite a large table). */
export const migrationStatementTimeoutMs = 3_600_000;

export interface AppliedMigrations {
  readonly module: string;
  /** Versions this call applied (empty when another node, or an earlier start, had applied them). */
  readonly applied: readonly number[];
}

/**
 * Applies the migrations of `module` that have not run yet. `migrations[i]` is version i + 1: append
 * new ones, never edit one that has run. A database that has a version this code does not know
 * (a newer node ran first) is refused, so an old binary never runs against a schema it predates.
 */
export async function applyPostgresMigrations(
  pool: PostgresPool,
  module: string,
  migrations: readonly string[],
): Promise<AppliedMigrations> {
  // Most calls find everything applied (every node start, every engine node's rebuild): a read
  // answers that without the lock and the DDL, so it also works while the database takes no writes.
  const recorded = await pool
    .query<{ version: number }>("SELECT version FROM schema_migrations WHERE module = $1", [module])
    .then(
      (result) => new Set(result.rows.map((row) => row.version)),
      () => undefined,
    );
  if (recorded !== undefined && recorded.size === migrations.length) {
    if (migrations.every((_, index) => recorded.has(index + 1))) return { module, applied: [] };
  }
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [migrationLockKey]);
    // Under the lock, so two nodes never race to create it.
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         module text NOT NULL,
         version integer NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (module, version)
       )`,
    );
    const result = await client.query<{ version: number }>(
      "SELECT version FROM schema_migrations WHERE module = $1",
      [module],
    );
    const done = new Set(result.rows.map((row) => row.version));
    const newest = Math.max(0, ...done);
    if (newest > migrations.length) {
      throw new Error(
        `The database has ${module} schema version ${newest}, newer than this build knows (${migrations.length}): upgrade this node`,
      );
    }
    const applied: number[] = [];
    for (const [index, sql] of migrations.entries()) {
      const version = index + 1;
      if (done.has(version)) continue;
      // A migration may rebuild a large table: not bounded by the connection's statement timeout.
      // (node-postgres reads query_timeout from the statement; its types do not list it.)
      const statement = { text: sql, query_timeout: migrationStatementTimeoutMs };
      await client.query(statement);
      await client.query("INSERT INTO schema_migrations (module, version) VALUES ($1, $2)", [
        module,
        version,
      ]);
      applied.push(version);
    }
    return { module, applied };
  });
}
