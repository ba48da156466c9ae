// SQLite adapter of the creators and their market applications, written once in the port
// (src/store/legacy-applications.ts). A submission's conflict checks (4041, 4010, 4013) and its
// insert run in one synchronous transaction, so two concurrent submissions of one title cannot both
// pass. Titles are compared with the exchange read models' `markets`, whose migrations this factory
// applies too (as the catalogue's does), so the comparison never silently finds nothing because this
// store was opened before the exchange.

import {
  type ApplicationProblem,
  type ApplicationRecord,
  type ApplicationRow,
  type ApplicationTerms,
  applicationInsert,
  applicationListStatements,
  applicationMigrations,
  applicationOf,
  applicationStatements,
  applicationStoreOn,
  type Checked,
  type ConflictCandidates,
  conflictCandidates,
  type LegacyApplicationStore,
  type OpenApplicationRow,
  similarityCandidatesMax,
} from "../legacy-applications.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { exchangeReadModelMigrations } from "./exchange-schema.js";
import { prepareSqlite, sqliteStatements, sqliteText } from "./statements.js";

export type { ApplicationFilter, LegacyApplicationStore } from "../legacy-applications.js";

export function createSqliteLegacyApplicationStore(db: SqliteDatabase): LegacyApplicationStore {
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  applyMigrations(db, "legacy_applications", applicationMigrations.map(sqliteText));
  // Safe integers: the liquidity is money.
  const options = { safeIntegers: true };
  const marketTitles = prepareSqlite(db, applicationStatements.marketTitles, options);
  const openApplications = prepareSqlite(db, applicationStatements.openApplications, options);
  const insert = prepareSqlite(db, applicationStatements.insert, options);
  const submit = db.transaction(
    (
      userId: number,
      terms: ApplicationTerms,
      nowMs: number,
      conflictOf: (candidates: ConflictCandidates) => ApplicationProblem | undefined,
    ): Checked<ApplicationRecord> => {
      const limit = { limit: similarityCandidatesMax };
      const problem = conflictOf(
        conflictCandidates(
          marketTitles.all<{ title: string }>(limit),
          openApplications.all<OpenApplicationRow>(limit),
        ),
      );
      if (problem !== undefined) return { ok: false, problem };
      return {
        ok: true,
        value: applicationOf(insert.get<ApplicationRow>(applicationInsert(userId, terms, nowMs))!),
      };
    },
  );
  return applicationStoreOn(
    sqliteStatements(db, applicationStatements, options),
    sqliteStatements(db, applicationListStatements, options),
    async (userId, terms, nowMs, conflictOf) => submit.immediate(userId, terms, nowMs, conflictOf),
  );
}
