// PostgreSQL adapter of the creators and their market applications, written once in the port
// (src/store/legacy-applications.ts). A submission's conflict checks and its insert run in one
// transaction under a transaction-scoped advisory lock, so two nodes submitting one title at once
// take turns and cannot both pass.
//
// A title is compared with the markets' titles in the exchange read models' `markets` table (the
// engine's projector writes it: src/store/postgres/exchange-schema.ts). The factory applies those
// migrations itself (each module applies once across nodes), so an API node that opens this store
// before any engine has run still reads the real table: never a "no table yet, compare with nothing"
// path that would let a duplicate of a live market's title through without a word.

import {
  type ApplicationRow,
  applicationInsert,
  applicationListStatements,
  applicationMigrations,
  applicationOf,
  applicationStatements,
  applicationStoreOn,
  conflictCandidates,
  type LegacyApplicationStore,
  type OpenApplicationRow,
  similarityCandidatesMax,
} from "../legacy-applications.js";
import { sql } from "../sql.js";
import { inTransaction, type PostgresPool } from "./database.js";
import { applyPostgresExchangeReadModelMigrations } from "./exchange-read-models.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements, postgresText, preparePostgres } from "./statements.js";

/** The advisory-lock key submissions take in turn (ASCII "pdxapply"). */
export const applicationSubmitLockKey = 0x7064786170706c79n;

const prefix = "predex-applications";
const lock = preparePostgres(`${prefix}-lock`, sql<{ key: bigint }>`SELECT pg_advisory_xact_lock(${"key"})`);
const marketTitles = preparePostgres(`${prefix}-market-titles`, applicationStatements.marketTitles);
const openApplications = preparePostgres(
  `${prefix}-open-applications`,
  applicationStatements.openApplications,
);
const insert = preparePostgres(`${prefix}-insert`, applicationStatements.insert);

export async function openPostgresLegacyApplicationStore(
  pool: PostgresPool,
): Promise<LegacyApplicationStore> {
  await applyPostgresExchangeReadModelMigrations(pool);
  await applyPostgresMigrations(pool, "legacy_applications", applicationMigrations.map(postgresText));
  return applicationStoreOn(
    postgresStatements(pool, prefix, applicationStatements),
    postgresStatements(pool, prefix, applicationListStatements),
    (userId, terms, nowMs, conflictOf) =>
      inTransaction(pool, async (client) => {
        await lock.query(client, { key: applicationSubmitLockKey });
        const limit = { limit: similarityCandidatesMax };
        const markets = await marketTitles.query<{ title: string }>(client, limit);
        const open = await openApplications.query<OpenApplicationRow>(client, limit);
        const problem = conflictOf(conflictCandidates(markets.rows, open.rows));
        if (problem !== undefined) return { ok: false, problem } as const;
        const inserted = await insert.row<ApplicationRow>(client, applicationInsert(userId, terms, nowMs));
        return { ok: true, value: applicationOf(inserted!) } as const;
      }),
  );
}
