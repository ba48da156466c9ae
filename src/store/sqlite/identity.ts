// SQLite adapter of the identity store. Tables are prefixed `identity_` so they can never collide
// with the engine's read models in the same file.

import type {
  IdentityStore,
  NewPartner,
  PartnerRecord,
  RegisterUserInput,
  SessionRecord,
  UserRecord,
} from "../identity.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

const identityMigrations = [
  `CREATE TABLE identity_partners (
     partner_id INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL UNIQUE,
     app_key TEXT NOT NULL UNIQUE,
     app_secret_sealed TEXT NOT NULL,
     api_key_sha256 TEXT NOT NULL UNIQUE,
     rsa_public_key TEXT,
     commission_rate_bps INTEGER NOT NULL DEFAULT 0,
     webhook_url TEXT,
     created_at_ms INTEGER NOT NULL
   );
   CREATE TABLE identity_users (
     user_id INTEGER PRIMARY KEY AUTOINCREMENT,
     partner_id INTEGER NOT NULL REFERENCES identity_partners (partner_id),
     marchant_user_id TEXT NOT NULL,
     email TEXT NOT NULL,
     user_name TEXT NOT NULL,
     avatar_url TEXT NOT NULL,
     created_at_ms INTEGER NOT NULL,
     UNIQUE (partner_id, marchant_user_id)
   );
   CREATE TABLE identity_sessions (
     token_sha256 TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES identity_users (user_id),
     partner_id INTEGER NOT NULL REFERENCES identity_partners (partner_id),
     created_at_ms INTEGER NOT NULL,
     expires_at_ms INTEGER NOT NULL,
     revoked_at_ms INTEGER
   );
   CREATE INDEX identity_sessions_by_user ON identity_sessions (user_id, created_at_ms);`,
  // 2: the operator's per-partner requirement of a signed x-ca-nonce (issue #27), off for every
  // partner that existed before it.
  "ALTER TABLE identity_partners ADD COLUMN signed_nonce_required INTEGER NOT NULL DEFAULT 0;",
];

/**
 * Sessions kept in memory after their first lookup, so a signed request does not query SQLite for
 * its cookie (the lookup was ~7% of the server's time per create-order). Safe because this process
 * is the file's only writer: every change to a session goes through this store, which drops the
 * user's cached sessions first. Past the bound the oldest cached entry is evicted; misses are not
 * cached, so unknown tokens cannot fill it.
 */
export const sessionCacheEntriesMax = 100_000;

interface PartnerRow {
  partner_id: number;
  name: string;
  app_key: string;
  app_secret_sealed: string;
  api_key_sha256: string;
  rsa_public_key: string | null;
  commission_rate_bps: number;
  webhook_url: string | null;
  signed_nonce_required: number;
  created_at_ms: number;
}

interface UserRow {
  user_id: number;
  partner_id: number;
  marchant_user_id: string;
  email: string;
  user_name: string;
  avatar_url: string;
  created_at_ms: number;
}

interface SessionRow {
  token_sha256: string;
  user_id: number;
  partner_id: number;
  created_at_ms: number;
  expires_at_ms: number;
  revoked_at_ms: number | null;
}

export function createSqliteIdentityStore(db: SqliteDatabase): IdentityStore {
  applyMigrations(db, "identity", identityMigrations);

  const insertPartner = db.prepare(
    `INSERT INTO identity_partners (name, app_key, app_secret_sealed, api_key_sha256, rsa_public_key,
       commission_rate_bps, webhook_url, created_at_ms)
     VALUES (@name, @appKey, @appSecretSealed, @apiKeySha256, @rsaPublicKey, @commissionRateBps, @webhookUrl, @createdAtMs)`,
  );
  const partnerById = db.prepare("SELECT * FROM identity_partners WHERE partner_id = ?");
  const partnerByAppKey = db.prepare("SELECT * FROM identity_partners WHERE app_key = ?");
  const partnerByName = db.prepare("SELECT * FROM identity_partners WHERE name = ?");
  const partnerByApiKey = db.prepare("SELECT * FROM identity_partners WHERE api_key_sha256 = ?");
  const updatePartnerSettings = db.prepare(
    `UPDATE identity_partners SET signed_nonce_required = coalesce(?, signed_nonce_required)
     WHERE partner_id = ? RETURNING *`,
  );

  const userByMerchantUser = db.prepare(
    "SELECT * FROM identity_users WHERE partner_id = ? AND marchant_user_id = ?",
  );
  const userById = db.prepare("SELECT * FROM identity_users WHERE user_id = ?");
  const insertUser = db.prepare(
    `INSERT INTO identity_users (partner_id, marchant_user_id, email, user_name, avatar_url, created_at_ms)
     VALUES (?, ?, ?, '', ?, ?)`,
  );
  // The public user name derives from the id, so it is set once the id exists.
  const nameUser = db.prepare("UPDATE identity_users SET user_name = 'user' || user_id WHERE user_id = ?");
  const updateEmail = db.prepare("UPDATE identity_users SET email = ? WHERE user_id = ?");

  const insertSession = db.prepare(
    `INSERT INTO identity_sessions (token_sha256, user_id, partner_id, created_at_ms, expires_at_ms)
     VALUES (@tokenSha256, @userId, @partnerId, @createdAtMs, @expiresAtMs)`,
  );
  const pruneDeadSessions = db.prepare(
    "DELETE FROM identity_sessions WHERE user_id = ? AND (expires_at_ms <= ? OR revoked_at_ms IS NOT NULL)",
  );
  const pruneOldestSessions = db.prepare(
    `DELETE FROM identity_sessions WHERE token_sha256 IN (
       SELECT token_sha256 FROM identity_sessions WHERE user_id = ?
       ORDER BY created_at_ms DESC, rowid DESC LIMIT -1 OFFSET ?)`,
  );
  const sessionByToken = db.prepare("SELECT * FROM identity_sessions WHERE token_sha256 = ?");
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
    return userById.get(lastInsertRowid) as UserRow;
  });

  const sessionCache = new SessionCache(sessionCacheEntriesMax);
  const createSession = db.transaction((session: Omit<SessionRecord, "revokedAtMs">, sessionsMax: number) => {
    pruneDeadSessions.run(session.userId, session.createdAtMs);
    insertSession.run(session);
    pruneOldestSessions.run(session.userId, sessionsMax);
  });

  return {
    async createPartner(partner: NewPartner) {
      const { lastInsertRowid } = insertPartner.run(partner);
      return partnerFromRow(partnerById.get(lastInsertRowid) as PartnerRow);
    },
    async findPartnerById(partnerId) {
      return maybe(partnerById.get(partnerId) as PartnerRow | undefined, partnerFromRow);
    },
    async findPartnerByAppKey(appKey) {
      return maybe(partnerByAppKey.get(appKey) as PartnerRow | undefined, partnerFromRow);
    },
    async findPartnerByName(name) {
      return maybe(partnerByName.get(name) as PartnerRow | undefined, partnerFromRow);
    },
    async findPartnerByApiKeySha256(apiKeySha256) {
      return maybe(partnerByApiKey.get(apiKeySha256) as PartnerRow | undefined, partnerFromRow);
    },
    async updatePartnerSettings(partnerId, update) {
      const required = update.signedNonceRequired === undefined ? null : Number(update.signedNonceRequired);
      return maybe(updatePartnerSettings.get(required, partnerId) as PartnerRow | undefined, partnerFromRow);
    },
    async registerUser(input) {
      return userFromRow(registerUser(input));
    },
    async findUserById(userId) {
      return maybe(userById.get(userId) as UserRow | undefined, userFromRow);
    },
    async createSession(session, sessionsPerUserMax) {
      // Creating prunes the user's dead and oldest sessions.
      sessionCache.forgetUser(session.userId);
      createSession(session, sessionsPerUserMax);
    },
    async findSession(tokenSha256) {
      const cached = sessionCache.get(tokenSha256);
      if (cached !== undefined) return cached;
      const found = maybe(sessionByToken.get(tokenSha256) as SessionRow | undefined, sessionFromRow);
      if (found !== undefined) sessionCache.add(found);
      return found;
    },
    async revokeUserSessions(userId, nowMs) {
      sessionCache.forgetUser(userId);
      return revokeSessions.run(nowMs, userId, nowMs).changes;
    },
  };
}

/** Sessions by token hash, and each user's cached token hashes so a change can drop them all. */
class SessionCache {
  readonly #byToken = new Map<string, SessionRecord>();
  readonly #tokensByUser = new Map<number, Set<string>>();

  constructor(readonly entriesMax: number) {}

  get(tokenSha256: string): SessionRecord | undefined {
    return this.#byToken.get(tokenSha256);
  }

  add(session: SessionRecord): void {
    if (this.#byToken.size >= this.entriesMax) {
      const oldest = this.#byToken.keys().next().value as string;
      this.#forget(this.#byToken.get(oldest)!);
    }
    // Frozen: every caller gets this same object, so none may change what the next one reads.
    this.#byToken.set(session.tokenSha256, Object.freeze(session));
    let tokens = this.#tokensByUser.get(session.userId);
    if (tokens === undefined) {
      tokens = new Set();
      this.#tokensByUser.set(session.userId, tokens);
    }
    tokens.add(session.tokenSha256);
  }

  forgetUser(userId: number): void {
    for (const token of this.#tokensByUser.get(userId) ?? []) this.#byToken.delete(token);
    this.#tokensByUser.delete(userId);
  }

  #forget(session: SessionRecord): void {
    this.#byToken.delete(session.tokenSha256);
    const tokens = this.#tokensByUser.get(session.userId)!;
    tokens.delete(session.tokenSha256);
    if (tokens.size === 0) this.#tokensByUser.delete(session.userId);
  }
}

function maybe<Row, Value>(row: Row | undefined, convert: (row: Row) => Value): Value | undefined {
  return row === undefined ? undefined : convert(row);
}

function partnerFromRow(row: PartnerRow): PartnerRecord {
  return {
    partnerId: row.partner_id,
    name: row.name,
    appKey: row.app_key,
    appSecretSealed: row.app_secret_sealed,
    apiKeySha256: row.api_key_sha256,
    rsaPublicKey: row.rsa_public_key,
    commissionRateBps: row.commission_rate_bps,
    webhookUrl: row.webhook_url,
    signedNonceRequired: row.signed_nonce_required === 1,
    createdAtMs: row.created_at_ms,
  };
}

function userFromRow(row: UserRow): UserRecord {
  return {
    userId: row.user_id,
    partnerId: row.partner_id,
    marchantUserId: row.marchant_user_id,
    email: row.email,
    userName: row.user_name,
    avatarUrl: row.avatar_url,
    createdAtMs: row.created_at_ms,
  };
}

function sessionFromRow(row: SessionRow): SessionRecord {
  return {
    tokenSha256: row.token_sha256,
    userId: row.user_id,
    partnerId: row.partner_id,
    createdAtMs: row.created_at_ms,
    expiresAtMs: row.expires_at_ms,
    revokedAtMs: row.revoked_at_ms,
  };
}
