// SQLite adapter of the identity store. Tables are prefixed `identity_` so they can never collide
// with the engine's read models in the same file.

import {
  type IdentityStore,
  identityMigrations,
  identitySingleStatementsOn,
  type RegisterUserInput,
  type SessionRecord,
  type SessionRow,
  sessionFromRow,
  identityStatements as shared,
  type UserRow,
  userFromRow,
} from "../identity.js";
import { KeptSessions } from "../kept-sessions.js";
import { mapped, sql } from "../sql.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareSqliteAll, sqliteStatements, sqliteText } from "./statements.js";

// SQLite's own: the user is registered in a transaction and named once its id exists; sessions of
// one millisecond are ordered by rowid.
const ownStatements = {
  userByMerchantUser: sql<{ partnerId: number; marchantUserId: string }>`SELECT * FROM identity_users
     WHERE partner_id = ${"partnerId"} AND marchant_user_id = ${"marchantUserId"}`,
  insertUser: sql<RegisterUserInput>`INSERT INTO identity_users
     (partner_id, marchant_user_id, email, user_name, avatar_url, created_at_ms)
     VALUES (${"partnerId"}, ${"marchantUserId"}, ${"email"}, '', ${"avatarUrl"}, ${"nowMs"})`,
  nameUser: sql<{ userId: number | bigint }>`UPDATE identity_users SET user_name = 'user' || user_id
     WHERE user_id = ${"userId"}`,
  updateEmail: sql<{ userId: number | bigint; email: string }>`UPDATE identity_users SET email = ${"email"}
     WHERE user_id = ${"userId"}`,
  pruneDeadSessions: sql<{ userId: number; nowMs: number }>`DELETE FROM identity_sessions
     WHERE user_id = ${"userId"} AND (expires_at_ms <= ${"nowMs"} OR revoked_at_ms IS NOT NULL)`,
  pruneOldestSessions: sql<{ userId: number; keep: number }>`DELETE FROM identity_sessions
     WHERE token_sha256 IN (SELECT token_sha256 FROM identity_sessions WHERE user_id = ${"userId"}
       ORDER BY created_at_ms DESC, rowid DESC LIMIT -1 OFFSET ${"keep"})`,
  revokeSessions: sql<{
    userId: number;
    nowMs: number;
  }>`UPDATE identity_sessions SET revoked_at_ms = ${"nowMs"}
     WHERE user_id = ${"userId"} AND revoked_at_ms IS NULL AND expires_at_ms > ${"nowMs"}`,
};

type Own = ReturnType<typeof prepareSqliteAll<typeof ownStatements>>;
type Shared = ReturnType<typeof prepareSqliteAll<typeof shared>>;

export function createSqliteIdentityStore(db: SqliteDatabase): IdentityStore {
  applyMigrations(db, "identity", identityMigrations.map(sqliteText));
  const own = prepareSqliteAll(db, ownStatements);
  const synchronous = prepareSqliteAll(db, shared);
  const registerUser = registerUserOn(db, own, synchronous);
  return {
    ...identitySingleStatementsOn(sqliteStatements(db, shared)),
    registerUser: async (input) => userFromRow(registerUser(input)),
    ...sessionMethods(db, own, synchronous),
  };
}

/** Finds or creates the merchant's user in one transaction; a null email keeps the stored one. */
function registerUserOn(db: SqliteDatabase, own: Own, synchronous: Shared) {
  return db.transaction((input: RegisterUserInput): UserRow => {
    const existing = own.userByMerchantUser.get<UserRow>(input);
    if (existing !== undefined) {
      if (input.email === null) return existing;
      if (existing.email !== input.email)
        own.updateEmail.run({ userId: existing.user_id, email: input.email });
      return { ...existing, email: input.email };
    }
    const { lastInsertRowid } = own.insertUser.run({ ...input, email: input.email ?? "" });
    own.nameUser.run({ userId: lastInsertRowid });
    return synchronous.userById.get<UserRow>({ userId: lastInsertRowid })!;
  });
}

function sessionMethods(
  db: SqliteDatabase,
  own: Own,
  synchronous: Shared,
): Pick<IdentityStore, "createSession" | "findSession" | "revokeUserSessions"> {
  // Sessions kept in memory after their first lookup, so a signed request does not query SQLite for
  // its cookie (the lookup was ~7% of the server's time per create-order). Safe because this process
  // is the file's only writer: every change to a session goes through this store, which drops the
  // user's kept sessions first.
  const sessionCache = new KeptSessions();
  const createSession = db.transaction((session: Omit<SessionRecord, "revokedAtMs">, sessionsMax: number) => {
    own.pruneDeadSessions.run({ userId: session.userId, nowMs: session.createdAtMs });
    synchronous.insertSession.run(session);
    own.pruneOldestSessions.run({ userId: session.userId, keep: sessionsMax });
  });
  return {
    async createSession(session, sessionsPerUserMax) {
      // Creating prunes the user's dead and oldest sessions.
      sessionCache.forgetUser(session.userId);
      createSession(session, sessionsPerUserMax);
    },
    findSession(tokenSha256) {
      const cached = sessionCache.get(tokenSha256);
      if (cached !== undefined) return cached.session;
      const found = mapped(synchronous.sessionByToken.get<SessionRow>({ tokenSha256 }), sessionFromRow);
      if (found !== undefined) sessionCache.keep(found);
      return found;
    },
    async revokeUserSessions(userId, nowMs) {
      sessionCache.forgetUser(userId);
      return own.revokeSessions.run({ userId, nowMs }).changes;
    },
  };
}
