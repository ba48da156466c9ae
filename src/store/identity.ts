// What the platform keeps about partners, their users and sessions. Asynchronous so that the
// PostgreSQL adapter can implement it as it is; the SQLite adapter answers synchronously inside.
// Secrets never reach this layer in clear: the APP Secret arrives sealed, keys and tokens hashed.

import {
  type BooleanColumn,
  type BoundStatements,
  columns,
  ddl,
  type IntegerColumn,
  mapped,
  perDialect,
  type Sql,
  sql,
  toBoolean,
  toNumber,
  toNumberOrNull,
} from "./sql.js";

export interface PartnerRecord {
  /** Numeric inside; on the wire it is the `merchantId` string. */
  readonly partnerId: number;
  readonly name: string;
  readonly appKey: string;
  /** The APP Secret encrypted with the master key (see src/identity/secret-box.ts). */
  readonly appSecretSealed: string;
  /** Hex SHA-256 of the API key. */
  readonly apiKeySha256: string;
  readonly rsaPublicKey: string | null;
  readonly commissionRateBps: number;
  readonly webhookUrl: string | null;
  /**
   * Every request of this partner that is not a read (any method but GET, HEAD and OPTIONS) must
   * sign an `x-ca-nonce`, so that none can be replayed; set by the operator, off by default.
   */
  readonly signedNonceRequired: boolean;
  readonly createdAtMs: number;
}

/** A new partner has every setting at its default (signedNonceRequired off). */
export type NewPartner = Omit<PartnerRecord, "partnerId" | "signedNonceRequired">;

/** What the operator may change on a partner; an absent field is left as it is. */
export interface PartnerSettingsUpdate {
  readonly signedNonceRequired?: boolean;
}

export interface UserRecord {
  readonly userId: number;
  readonly partnerId: number;
  readonly marchantUserId: string;
  readonly email: string;
  readonly userName: string;
  readonly avatarUrl: string;
  readonly createdAtMs: number;
}

export interface RegisterUserInput {
  readonly partnerId: number;
  readonly marchantUserId: string;
  /** null keeps an existing user's e-mail (a new user gets ""): the legacy authorize may omit it. */
  readonly email: string | null;
  readonly avatarUrl: string;
  readonly nowMs: number;
}

export interface SessionRecord {
  /** Hex SHA-256 of the opaque token; the token itself is only ever in the client's cookie. */
  readonly tokenSha256: string;
  readonly userId: number;
  readonly partnerId: number;
  readonly createdAtMs: number;
  readonly expiresAtMs: number;
  readonly revokedAtMs: number | null;
}

export interface IdentityStore {
  createPartner(partner: NewPartner): Promise<PartnerRecord>;
  findPartnerById(partnerId: number): Promise<PartnerRecord | undefined>;
  findPartnerByAppKey(appKey: string): Promise<PartnerRecord | undefined>;
  findPartnerByName(name: string): Promise<PartnerRecord | undefined>;
  /** The legacy authorize call names its partner by API key (stored as its hex SHA-256). */
  findPartnerByApiKeySha256(apiKeySha256: string): Promise<PartnerRecord | undefined>;
  /** Changes the partner's settings; the partner after the change, or undefined when there is none. */
  updatePartnerSettings(partnerId: number, update: PartnerSettingsUpdate): Promise<PartnerRecord | undefined>;

  /** Creates the user, or returns the existing one of (partnerId, marchantUserId) with its email updated. */
  registerUser(input: RegisterUserInput): Promise<UserRecord>;
  findUserById(userId: number): Promise<UserRecord | undefined>;

  /**
   * Stores a new session; drops the user's expired and revoked sessions and, beyond
   * `sessionsPerUserMax` live ones, the oldest.
   */
  createSession(session: Omit<SessionRecord, "revokedAtMs">, sessionsPerUserMax: number): Promise<void>;
  /** A session kept in memory is answered as is, without a promise (every user request asks). */
  findSession(tokenSha256: string): SessionRecord | undefined | Promise<SessionRecord | undefined>;
  /** Revokes every live session of the user; returns how many were live. */
  revokeUserSessions(userId: number, nowMs: number): Promise<number>;
}

// ---- How both adapters store these records: one schema (its few dialect words switched), one row
// type and mapper per record, and the statements both run alike. What differs stays in the adapter,
// named: SQLite names a new user in its transaction and orders sessions by rowid; PostgreSQL
// registers in one upsert, computes the name, numbers sessions and NOTIFYs other nodes.

export const identityMigrations: readonly Sql[] = [
  sql`CREATE TABLE identity_partners (
     partner_id ${ddl.autoId},
     name text NOT NULL UNIQUE,
     app_key text NOT NULL UNIQUE,
     app_secret_sealed text NOT NULL,
     api_key_sha256 text NOT NULL UNIQUE,
     rsa_public_key text,
     commission_rate_bps integer NOT NULL DEFAULT 0,
     webhook_url text,
     created_at_ms ${ddl.int64} NOT NULL
   );
   CREATE TABLE identity_users (
     user_id ${ddl.autoId},
     partner_id ${ddl.int64} NOT NULL REFERENCES identity_partners (partner_id),
     marchant_user_id text NOT NULL,
     email text NOT NULL,
     -- The public name derives from the id: PostgreSQL computes it, SQLite's insert sets it after.
     user_name ${perDialect({ sqlite: "text NOT NULL", postgres: "text GENERATED ALWAYS AS ('user' || user_id::text) STORED" })},
     avatar_url text NOT NULL,
     created_at_ms ${ddl.int64} NOT NULL,
     UNIQUE (partner_id, marchant_user_id)
   );
   CREATE TABLE identity_sessions (
     token_sha256 text PRIMARY KEY,
     -- Creation order among sessions of one millisecond (SQLite's rowid plays this part).
     ${perDialect({ sqlite: "", postgres: "session_number bigint GENERATED ALWAYS AS IDENTITY," })}
     user_id ${ddl.int64} NOT NULL REFERENCES identity_users (user_id),
     partner_id ${ddl.int64} NOT NULL REFERENCES identity_partners (partner_id),
     created_at_ms ${ddl.int64} NOT NULL,
     expires_at_ms ${ddl.int64} NOT NULL,
     revoked_at_ms ${ddl.int64}
   );
   CREATE INDEX identity_sessions_by_user ON identity_sessions (user_id, created_at_ms);`,
  // 2: the operator's per-partner requirement of a signed x-ca-nonce (issue #27), off for every
  // partner that existed before it.
  sql`ALTER TABLE identity_partners ADD COLUMN signed_nonce_required ${ddl.boolean} NOT NULL DEFAULT ${ddl.false};`,
];

export interface PartnerRow {
  partner_id: IntegerColumn;
  name: string;
  app_key: string;
  app_secret_sealed: string;
  api_key_sha256: string;
  rsa_public_key: string | null;
  commission_rate_bps: number;
  webhook_url: string | null;
  signed_nonce_required: BooleanColumn;
  created_at_ms: IntegerColumn;
}

export interface UserRow {
  user_id: IntegerColumn;
  partner_id: IntegerColumn;
  marchant_user_id: string;
  email: string;
  user_name: string;
  avatar_url: string;
  created_at_ms: IntegerColumn;
}

export interface SessionRow {
  token_sha256: string;
  user_id: IntegerColumn;
  partner_id: IntegerColumn;
  created_at_ms: IntegerColumn;
  expires_at_ms: IntegerColumn;
  revoked_at_ms: IntegerColumn | null;
}

export function partnerFromRow(row: PartnerRow): PartnerRecord {
  return {
    partnerId: toNumber(row.partner_id),
    name: row.name,
    appKey: row.app_key,
    appSecretSealed: row.app_secret_sealed,
    apiKeySha256: row.api_key_sha256,
    rsaPublicKey: row.rsa_public_key,
    commissionRateBps: row.commission_rate_bps,
    webhookUrl: row.webhook_url,
    signedNonceRequired: toBoolean(row.signed_nonce_required),
    createdAtMs: toNumber(row.created_at_ms),
  };
}

export function userFromRow(row: UserRow): UserRecord {
  return {
    userId: toNumber(row.user_id),
    partnerId: toNumber(row.partner_id),
    marchantUserId: row.marchant_user_id,
    email: row.email,
    userName: row.user_name,
    avatarUrl: row.avatar_url,
    createdAtMs: toNumber(row.created_at_ms),
  };
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  return {
    tokenSha256: row.token_sha256,
    userId: toNumber(row.user_id),
    partnerId: toNumber(row.partner_id),
    createdAtMs: toNumber(row.created_at_ms),
    expiresAtMs: toNumber(row.expires_at_ms),
    revokedAtMs: toNumberOrNull(row.revoked_at_ms),
  };
}

const partnerColumns = columns(`partner_id, name, app_key, app_secret_sealed, api_key_sha256,
  rsa_public_key, commission_rate_bps, webhook_url, signed_nonce_required, created_at_ms`);
const userColumns = columns(
  "user_id, partner_id, marchant_user_id, email, user_name, avatar_url, created_at_ms",
);
const sessionColumns = columns(
  "token_sha256, user_id, partner_id, created_at_ms, expires_at_ms, revoked_at_ms",
);

export const identityStatements = {
  insertPartner: sql<NewPartner>`INSERT INTO identity_partners (name, app_key, app_secret_sealed,
       api_key_sha256, rsa_public_key, commission_rate_bps, webhook_url, created_at_ms)
     VALUES (${"name"}, ${"appKey"}, ${"appSecretSealed"}, ${"apiKeySha256"}, ${"rsaPublicKey"},
       ${"commissionRateBps"}, ${"webhookUrl"}, ${"createdAtMs"})
     RETURNING ${partnerColumns}`,
  partnerById: sql<{
    partnerId: number;
  }>`SELECT ${partnerColumns} FROM identity_partners WHERE partner_id = ${"partnerId"}`,
  partnerByAppKey: sql<{
    appKey: string;
  }>`SELECT ${partnerColumns} FROM identity_partners WHERE app_key = ${"appKey"}`,
  partnerByName: sql<{
    name: string;
  }>`SELECT ${partnerColumns} FROM identity_partners WHERE name = ${"name"}`,
  partnerByApiKey: sql<{
    apiKeySha256: string;
  }>`SELECT ${partnerColumns} FROM identity_partners WHERE api_key_sha256 = ${"apiKeySha256"}`,
  // A null leaves the setting as it is.
  updatePartnerSettings: sql<{
    partnerId: number;
    signedNonceRequired: boolean | null;
  }>`UPDATE identity_partners
     SET signed_nonce_required = coalesce(${"signedNonceRequired"}, signed_nonce_required)
     WHERE partner_id = ${"partnerId"} RETURNING ${partnerColumns}`,
  userById: sql<{
    userId: number | bigint;
  }>`SELECT ${userColumns} FROM identity_users WHERE user_id = ${"userId"}`,
  insertSession: sql<Omit<SessionRecord, "revokedAtMs">>`INSERT INTO identity_sessions
       (token_sha256, user_id, partner_id, created_at_ms, expires_at_ms)
     VALUES (${"tokenSha256"}, ${"userId"}, ${"partnerId"}, ${"createdAtMs"}, ${"expiresAtMs"})`,
  sessionByToken: sql<{
    tokenSha256: string;
  }>`SELECT ${sessionColumns} FROM identity_sessions WHERE token_sha256 = ${"tokenSha256"}`,
};

/** The store's methods that are one shared statement each: partners, and a user by id. */
export type IdentitySingleStatementMethods =
  | "createPartner"
  | "findPartnerById"
  | "findPartnerByAppKey"
  | "findPartnerByName"
  | "findPartnerByApiKeySha256"
  | "updatePartnerSettings"
  | "findUserById";

/** Those methods written once, on the port's statements bound to either database. */
export function identitySingleStatementsOn(
  statements: BoundStatements<typeof identityStatements>,
): Pick<IdentityStore, IdentitySingleStatementMethods> {
  const partner = async (found: Promise<PartnerRow | undefined>) => mapped(await found, partnerFromRow);
  return {
    createPartner: async (newPartner) =>
      partnerFromRow((await statements.insertPartner.row<PartnerRow>(newPartner))!),
    findPartnerById: (partnerId) => partner(statements.partnerById.row({ partnerId })),
    findPartnerByAppKey: (appKey) => partner(statements.partnerByAppKey.row({ appKey })),
    findPartnerByName: (name) => partner(statements.partnerByName.row({ name })),
    findPartnerByApiKeySha256: (apiKeySha256) => partner(statements.partnerByApiKey.row({ apiKeySha256 })),
    // A null leaves the setting as it is.
    updatePartnerSettings: (partnerId, update) =>
      partner(
        statements.updatePartnerSettings.row({
          partnerId,
          signedNonceRequired: update.signedNonceRequired ?? null,
        }),
      ),
    findUserById: async (userId) => mapped(await statements.userById.row<UserRow>({ userId }), userFromRow),
  };
}
