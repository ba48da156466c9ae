// PostgreSQL adapter of the identity store (port: src/store/identity.ts; SQLite twin:
// src/store/sqlite/identity.ts). Sessions are rows and every lookup reads the row: unlike the SQLite
// adapter, which caches sessions because its process is the file's only writer, several API nodes
// share this database, so a revocation written by one node must refuse the cookie on every node at
// the next request. That costs one indexed point read per signed request (a named prepared
// statement, one round trip), which a node may save with its session cache (session-cache.ts): for
// that, every statement that ends live sessions (a revocation, a new session evicting the oldest)
// also NOTIFYs the user's id on `sessionsChangedChannel`, in the same statement, so the
// notification goes out exactly when the change commits (never for one rolled back).

import {
  type IdentityStore,
  identityMigrations,
  identitySingleStatementsOn,
  type RegisterUserInput,
  type SessionRow,
  sessionFromRow,
  identityStatements as shared,
  type UserRow,
  userFromRow,
} from "../identity.js";
import { mapped, raw, sql } from "../sql.js";
import { inTransaction, type PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements, postgresText, preparePostgres } from "./statements.js";

/** Where every node hears of sessions ended elsewhere; the payload is the user's id. */
export const sessionsChangedChannel = "predex_sessions";

const sessionsChanged = raw(`'${sessionsChangedChannel}'`);

const statements = {
  insertSession: preparePostgres("predex-identity-insert-session", shared.insertSession),
  sessionByToken: preparePostgres("predex-identity-session-by-token", shared.sessionByToken),

  // PostgreSQL's own. One atomic statement: two nodes registering the same merchant user at once get
  // one row. A null email keeps the stored one (a new user gets "").
  registerUser: preparePostgres(
    "predex-identity-register-user",
    sql<RegisterUserInput>`INSERT INTO identity_users AS users (partner_id, marchant_user_id, email, avatar_url, created_at_ms)
       VALUES (${"partnerId"}, ${"marchantUserId"}, coalesce(${"email"}, ''), ${"avatarUrl"}, ${"nowMs"})
       ON CONFLICT (partner_id, marchant_user_id) DO UPDATE SET email = coalesce(${"email"}, users.email)
       RETURNING *`,
  ),
  lockUser: preparePostgres(
    "predex-identity-lock-user",
    sql<{ userId: number }>`SELECT 1 FROM identity_users WHERE user_id = ${"userId"} FOR UPDATE`,
  ),
  // Drops the user's dead sessions and, of the live ones, all but the newest (max − 1), so that the
  // session inserted next makes max. Evicting a live session tells every node (dead ones are refused
  // by any node that kept them anyway: revoked, or past expiresAtMs).
  pruneSessions: preparePostgres(
    "predex-identity-prune-sessions",
    sql<{ userId: number; nowMs: number; keep: number }>`WITH dead AS (
       DELETE FROM identity_sessions
       WHERE user_id = ${"userId"} AND (expires_at_ms <= ${"nowMs"} OR revoked_at_ms IS NOT NULL)
     ), evicted AS (
       DELETE FROM identity_sessions WHERE token_sha256 IN (
         SELECT token_sha256 FROM identity_sessions
         WHERE user_id = ${"userId"} AND expires_at_ms > ${"nowMs"} AND revoked_at_ms IS NULL
         ORDER BY created_at_ms DESC, session_number DESC OFFSET ${"keep"})
       RETURNING 1
     )
     SELECT pg_notify(${sessionsChanged}, ${"userId"}::bigint::text) WHERE EXISTS (SELECT FROM evicted)`,
  ),
  // Revokes and, when any session was live, tells every node: one statement, one round trip.
  revokeSessions: preparePostgres(
    "predex-identity-revoke-sessions",
    sql<{ userId: number; nowMs: number }>`WITH revoked AS (
       UPDATE identity_sessions SET revoked_at_ms = ${"nowMs"}
       WHERE user_id = ${"userId"} AND revoked_at_ms IS NULL AND expires_at_ms > ${"nowMs"}
       RETURNING 1
     ), counted AS (SELECT count(*)::integer AS revoked FROM revoked)
     SELECT revoked,
       CASE WHEN revoked > 0 THEN pg_notify(${sessionsChanged}, ${"userId"}::bigint::text) END AS told
     FROM counted`,
  ),
};

export async function openPostgresIdentityStore(pool: PostgresPool): Promise<IdentityStore> {
  await applyPostgresMigrations(pool, "identity", identityMigrations.map(postgresText));
  return {
    ...identitySingleStatementsOn(postgresStatements(pool, "predex-identity", shared)),
    async registerUser(input) {
      return userFromRow((await statements.registerUser.row<UserRow>(pool, input))!);
    },
    async createSession(session, sessionsPerUserMax) {
      // The user's row lock makes two logins of one user on two nodes take turns, so the bound
      // holds under concurrency.
      await inTransaction(pool, async (client) => {
        await statements.lockUser.query(client, { userId: session.userId });
        await statements.pruneSessions.query(client, {
          userId: session.userId,
          nowMs: session.createdAtMs,
          keep: Math.max(0, sessionsPerUserMax - 1),
        });
        await statements.insertSession.query(client, session);
      });
    },
    async findSession(tokenSha256) {
      return mapped(await statements.sessionByToken.row<SessionRow>(pool, { tokenSha256 }), sessionFromRow);
    },
    async revokeUserSessions(userId, nowMs) {
      return (await statements.revokeSessions.row<{ revoked: number }>(pool, { userId, nowMs }))!.revoked;
    },
  };
}
