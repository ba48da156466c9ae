// What the platform keeps about partners, their users and sessions. Asynchronous so that the
// PostgreSQL adapter can implement it as it is; the SQLite adapter answers synchronously inside.
// Secrets never reach this layer in clear: the APP Secret arrives sealed, keys and tokens hashed.

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
  findSession(tokenSha256: string): Promise<SessionRecord | undefined>;
  /** Revokes every live session of the user; returns how many were live. */
  revokeUserSessions(userId: number, nowMs: number): Promise<number>;
}
