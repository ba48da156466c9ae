// SQLite adapter of the identity store. Tables are prefixed `identity_` so they can never collide
// with the engine's read models in the same file.

import {
  type IdentityStore,
  identityMigrations,
  type PartnerRow,
  partnerFromRow,
  type RegisterUserInput,
  type SessionRecord,
  type SessionRow,
  sessionFromRow,
  identityStatements as shared,
  type UserRow,
  userFromRow,
} from "../identity.js";
import { KeptSessions } from "../kept-sessions.js";
import { mapped, type Sql } from "../sql.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareSqlite, sqliteText } from "./statements.js";

export function createSqliteIdentityStore(db: SqliteDatabase): IdentityStore {
  applyMigrations(db, "identity", identityMigrations.map(sqliteText));
  const prepare = <P>(statement: Sql<P>) => prepareSqlite(db, statement);
  const insertPartner = prepare(shared.insertPartner);
  const partnerById = prepare(shared.partnerById);
  const partnerByAppKey = prepare(shared.partnerByAppKey);
  const partnerByName = prepare(shared.partnerByName);
  const partnerByApiKey = prepare(shared.partnerByApiKey);
  const updatePartnerSettings = prepare(shared.updatePartnerSettings);
  const userById = prepare(shared.userById);
  const insertSession = prepare(shared.insertSession);
  const sessionByToken = prepare(shared.sessionByToken);

  // SQLite's own: the user is registered in a transaction and named once its id exists; sessions
  // of one millisecond are ordered by rowid.
  const userByMerchantUser = db.prepare(
    "SELECT * FROM identity_users WHERE partner_id = ? AND marchant_user_id = ?",
  );
  const insertUser = db.prepare(
    `INSERT INTO identity_users (partner_id, marchant_user_id, email, user_name, avatar_url, created_at_ms)
     VALUES (?, ?, ?, '', ?, ?)`,
  );
  const nameUser = db.prepare("UPDATE identity_users SET user_name = 'user' || user_id WHERE user_id = ?");
  const updateEmail = db.prepare("UPDATE identity_users SET email = ? WHERE user_id = ?");
  const pruneDeadSessions = db.prepare(
    "DELETE FROM identity_sessions WHERE user_id = ? AND (expires_at_ms <= ? OR revoked_at_ms IS NOT NULL)",
  );
  const pruneOldestSessions = db.prepare(
    `DELETE FROM identity_sessions WHERE token_sha256 IN (
       SELECT token_sha256 FROM identity_sessions WHERE user_id = ?
       ORDER BY created_at_ms DESC, rowid DESC LIMIT -1 OFFSET ?)`,
  );
  const revokeSessions = db.prepare(
    `UPDATE identity_sessions SET revoked_at_ms = ?
     WHERE user_id = ? AND revoked_at_ms IS NULL AND expires_at_ms > ?`,
  );

  const registerUser = db.transaction((input: RegisterUserInput): UserRow => {
    const existing = userByMerchantUser.get(input.partnerId, input.marchantUserId) as UserRow | undefined;
    if (existing !== undefined) {
      if (input.email === null) return existing;
      if (existing.email !== input.email) updateEmail.run(input.email, existing.user_id);
      return { ...existing, email: input.email };
    }
    const { lastInsertRowid } = insertUser.run(
      input.partnerId,
      input.marchantUserId,
      input.email ?? "",
      input.avatarUrl,
      input.nowMs,
    );
    nameUser.run(lastInsertRowid);
    return userById.get<UserRow>({ userId: lastInsertRowid })!;
  });

  // Sessions kept in memory after their first lookup, so a signed request does not query SQLite for
  // its cookie (the lookup was ~7% of the server's time per create-order). Safe because this process
  // is the file's only writer: every change to a session goes through this store, which drops the
  // user's kept sessions first.
  const sessionCache = new KeptSessions();
  const createSession = db.transaction((session: Omit<SessionRecord, "revokedAtMs">, sessionsMax: number) => {
    pruneDeadSessions.run(session.userId, session.createdAtMs);
    insertSession.run(session);
    pruneOldestSessions.run(session.userId, sessionsMax);
  });

  return {
    async createPartner(partner) {
      return partnerFromRow(insertPartner.get<PartnerRow>(partner)!);
    },
    async findPartnerById(partnerId) {
      return mapped(partnerById.get<PartnerRow>({ partnerId }), partnerFromRow);
    },
    async findPartnerByAppKey(appKey) {
      return mapped(partnerByAppKey.get<PartnerRow>({ appKey }), partnerFromRow);
    },
    async findPartnerByName(name) {
      return mapped(partnerByName.get<PartnerRow>({ name }), partnerFromRow);
    },
    async findPartnerByApiKeySha256(apiKeySha256) {
      return mapped(partnerByApiKey.get<PartnerRow>({ apiKeySha256 }), partnerFromRow);
    },
    async updatePartnerSettings(partnerId, update) {
      const signedNonceRequired = update.signedNonceRequired ?? null;
      return mapped(
        updatePartnerSettings.get<PartnerRow>({ partnerId, signedNonceRequired }),
        partnerFromRow,
      );
    },
    async registerUser(input) {
      return userFromRow(registerUser(input));
    },
    async findUserById(userId) {
      return mapped(userById.get<UserRow>({ userId }), userFromRow);
    },
    async createSession(session, sessionsPerUserMax) {
      // Creating prunes the user's dead and oldest sessions.
      sessionCache.forgetUser(session.userId);
      createSession(session, sessionsPerUserMax);
    },
    async findSession(tokenSha256) {
      const cached = sessionCache.get(tokenSha256);
      if (cached !== undefined) return cached.session;
      const found = mapped(sessionByToken.get<SessionRow>({ tokenSha256 }), sessionFromRow);
      if (found !== undefined) sessionCache.keep(found);
      return found;
    },
    async revokeUserSessions(userId, nowMs) {
      sessionCache.forgetUser(userId);
      return revokeSessions.run(nowMs, userId, nowMs).changes;
    },
  };
}
