// Every table the read-model projectors write on PostgreSQL, row for row (the journal, leadership,
// forwarded ids, the read models' position and identity excluded): two databases whose read models
// were projected from the same journal must give the same map (test/store/postgres-read-model-
// projection.test.ts, test/topology/engine-failover.test.ts).

import type { PostgresPool } from "../../src/store/postgres/database.js";

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
