// Every table the read-model projectors write on PostgreSQL, row for row (the journal, leadership,
// forwarded ids, the read models' position and identity excluded): two databases whose read models
// were projected from the same journal must give the same map (test/store/postgres-read-model-
// projection.test.ts, test/topology/engine-failover.test.ts, test/e2e/sigkill-orders.test.ts), and the
// same journal projected afresh into an empty database (projectJournalAfresh).

import type { ExchangeCommand, ExchangeEvent } from "../../src/core/exchange.js";
import type { JournalSource } from "../../src/engine/store.js";
import type { PostgresPool } from "../../src/store/postgres/database.js";
import { PostgresReadModelProjection } from "../../src/store/postgres/read-model-projection.js";
import { openPostgresEngineProjectors } from "../../src/topology/postgres-projectors.js";

export async function projectedTables(pool: PostgresPool): Promise<Map<string, string[]>> {
  const tables = await pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
       AND table_name NOT LIKE 'engine\\_%' AND table_name NOT LIKE 'identity\\_%'
       AND table_name <> 'schema_migrations'
     ORDER BY table_name`,
  );
  const found = new Map<string, string[]>();
  for (const { name } of tables.rows) {
    const rows = await pool.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t ORDER BY 1`);
    found.set(
      name,
      rows.rows.map((row) => row.row),
    );
  }
  return found;
}

/**
 * Projects `journal` up to `through` into `fresh` with the engine leader's projectors, as a leader
 * opening its projection does: an empty database gets the whole journal, one projected into before
 * continues from its position. The commission projector reads the identity tables (which user
 * belongs to which partner, at which rate), which the journal does not hold: with `identityFrom`, a
 * platform's database, their rows are copied from it first (into an empty database only).
 */
export async function projectJournalAfresh(
  fresh: PostgresPool,
  journal: JournalSource<ExchangeCommand, ExchangeEvent>,
  through: bigint,
  options: { readonly identityFrom?: PostgresPool } = {},
): Promise<void> {
  const projectors = await openPostgresEngineProjectors(fresh);
  try {
    if (options.identityFrom !== undefined) await copyIdentityRows(options.identityFrom, fresh);
    const projection = await PostgresReadModelProjection.open({
      pool: fresh,
      projectors: projectors.projectors,
      journal,
      committedSequence: through,
      onFatal: (error) => {
        throw error;
      },
    });
    await projection.close();
  } finally {
    await projectors.close();
  }
}

/**
 * Every identity_* row of `from` into the same (empty) tables of `to`, ids as they are: partners,
 * then users, then what references them.
 */
async function copyIdentityRows(from: PostgresPool, to: PostgresPool): Promise<void> {
  const tables = await to.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name LIKE 'identity\\_%'
     ORDER BY table_name <> 'identity_partners', table_name <> 'identity_users', table_name`,
  );
  for (const { name } of tables.rows) {
    // Generated columns are computed again from the others.
    const columns = await to.query<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
      [name],
    );
    const list = columns.rows.map((column) => `"${column.name}"`).join(", ");
    const rows = await from.query<{ rows: unknown }>(
      `SELECT coalesce(json_agg(t), '[]') AS rows FROM "${name}" t`,
    );
    await to.query(
      `INSERT INTO "${name}" (${list}) OVERRIDING SYSTEM VALUE
       SELECT ${list} FROM json_populate_recordset(null::"${name}", $1)`,
      [JSON.stringify(rows.rows[0]!.rows)],
    );
  }
}
