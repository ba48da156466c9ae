// Partners, users and sessions (DESIGN §4): the rules, independent of HTTP. API surfaces call this;
// it calls the identity store. Secrets are generated, sealed and hashed here and nowhere else.

import { constantTimeEqual } from "../contract/signing/gateway-signature.js";
import { type Rejection, reject } from "../core/errors.js";
import type { AppKeyRecord } from "../gateway/verifier.js";
import type { IdentityStore, PartnerRecord, UserRecord } from "../store/identity.js";
import { generatePartnerCredentials, generateSessionToken, sha256Hex } from "./credentials.js";
import type { SecretBox } from "./secret-box.js";
import { deriveWebhookSecret } from "./webhook-secret.js";

export type Result<Value> =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly rejection: Rejection };

/** A user may hold this many live sessions (several devices); registering beyond it drops the oldest. */
export const sessionsPerUserMax = 20;
/** Decrypted partner credentials are re-read this often, so a rotation on another node is seen. */
export const partnerCacheTtlMs = 60_000;
export const partnerCacheEntriesMax = 10_000;
/** Users get this picture until a profile operation lets them choose one. */
export const defaultAvatarUrl = "https://assets.predex.dev/avatars/default.png";

/** What the gateway and the service layer know about an authenticated partner. */
export interface AuthenticatedPartner extends AppKeyRecord {
  /** The partner's id as the wire shows it (`merchantId`, a string). */
  readonly merchantId: string;
  readonly apiKeySha256: string;
}

export interface CreatePartnerInput {
  readonly name?: string;
  readonly rsaPublicKey?: string;
  readonly commissionRateBps?: number;
  readonly webhookUrl?: string;
}

/** Shown once, at creation: the platform keeps only the sealed secret and the key's hash. */
export interface CreatedPartner {
  readonly merchantId: string;
  readonly appKey: string;
  readonly appSecret: string;
  readonly apiKey: string;
  /** Verifies merchant webhooks (Standard Webhooks `whsec_…`); derived from the APP Secret, shown once. */
  readonly webhookSecret: string;
}

export interface RegisterInput {
  readonly merchantId: string;
  readonly userEmail: string;
  readonly marchantUserId: string;
}

export interface Registration {
  readonly user: UserRecord;
  /** The opaque token for the `predex_session` cookie; stored only as its hash. */
  readonly sessionToken: string;
  readonly sessionTtlSeconds: number;
}

export interface SessionUser {
  readonly userId: number;
  readonly partnerId: number;
}

export interface IdentityServiceOptions {
  readonly store: IdentityStore;
  readonly secretBox: SecretBox;
  readonly nowMs: () => number;
  readonly sessionTtlSeconds: number;
}

export class IdentityService {
  readonly #store: IdentityStore;
  readonly #secretBox: SecretBox;
  readonly #nowMs: () => number;
  readonly #sessionTtlSeconds: number;
  readonly #partnersByAppKey = new Map<string, { partner: AuthenticatedPartner; loadedAtMs: number }>();

  constructor(options: IdentityServiceOptions) {
    this.#store = options.store;
    this.#secretBox = options.secretBox;
    this.#nowMs = options.nowMs;
    this.#sessionTtlSeconds = options.sessionTtlSeconds;
  }

  get store(): IdentityStore {
    return this.#store;
  }

  async createPartner(input: CreatePartnerInput): Promise<Result<CreatedPartner>> {
    const credentials = generatePartnerCredentials();
    const name = input.name ?? `partner-${credentials.appKey.slice(0, 8)}`;
    if ((await this.#store.findPartnerByName(name)) !== undefined) {
      return { ok: false, rejection: reject("INVALID_INPUT", `A partner named ${name} already exists`) };
    }
    const partner = await this.#store.createPartner({
      name,
      appKey: credentials.appKey,
      appSecretSealed: this.#secretBox.seal(credentials.appSecret, credentials.appKey),
      apiKeySha256: sha256Hex(credentials.apiKey),
      rsaPublicKey: input.rsaPublicKey ?? null,
      commissionRateBps: input.commissionRateBps ?? 0,
      webhookUrl: input.webhookUrl ?? null,
      createdAtMs: this.#nowMs(),
    });
    return {
      ok: true,
      value: {
        merchantId: String(partner.partnerId),
        ...credentials,
        webhookSecret: deriveWebhookSecret(credentials.appSecret),
      },
    };
  }

  /** The gateway's APP Key lookup. Cached: it runs on every request, and decryption is not free. */
  async lookupAppKey(appKey: string): Promise<AuthenticatedPartner | undefined> {
    const nowMs = this.#nowMs();
    const cached = this.#partnersByAppKey.get(appKey);
    if (cached !== undefined && nowMs - cached.loadedAtMs < partnerCacheTtlMs) return cached.partner;
    const record = await this.#store.findPartnerByAppKey(appKey);
    if (record === undefined) return undefined;
    const partner: AuthenticatedPartner = {
      appKey: record.appKey,
      appSecret: this.#secretBox.open(record.appSecretSealed, record.appKey),
      partnerId: record.partnerId,
      merchantId: String(record.partnerId),
      apiKeySha256: record.apiKeySha256,
    };
    if (this.#partnersByAppKey.size >= partnerCacheEntriesMax) this.#partnersByAppKey.clear();
    this.#partnersByAppKey.set(appKey, { partner, loadedAtMs: nowMs });
    return partner;
  }

  /** Registers (or finds) the partner's user and opens a fresh session for it. */
  async register(partner: AuthenticatedPartner, input: RegisterInput): Promise<Result<Registration>> {
    if (input.merchantId.trim() !== partner.merchantId) {
      return {
        ok: false,
        rejection: reject("INVALID_INPUT", "merchantId does not belong to the partner of this API key"),
      };
    }
    const nowMs = this.#nowMs();
    const user = await this.#store.registerUser({
      partnerId: partner.partnerId,
      marchantUserId: input.marchantUserId,
      email: input.userEmail,
      avatarUrl: defaultAvatarUrl,
      nowMs,
    });
    const sessionToken = generateSessionToken();
    await this.#store.createSession(
      {
        tokenSha256: sha256Hex(sessionToken),
        userId: user.userId,
        partnerId: partner.partnerId,
        createdAtMs: nowMs,
        expiresAtMs: nowMs + this.#sessionTtlSeconds * 1000,
      },
      sessionsPerUserMax,
    );
    return { ok: true, value: { user, sessionToken, sessionTtlSeconds: this.#sessionTtlSeconds } };
  }

  /** The session's user, or undefined when the token is unknown, expired, revoked or another partner's. */
  async resolveSession(sessionToken: string, partnerId: number): Promise<SessionUser | undefined> {
    const session = await this.#store.findSession(sha256Hex(sessionToken));
    if (session === undefined || session.partnerId !== partnerId) return undefined;
    if (session.revokedAtMs !== null || session.expiresAtMs <= this.#nowMs()) return undefined;
    return { userId: session.userId, partnerId: session.partnerId };
  }

  /** The partner an API key belongs to (the legacy authorize call), or undefined. */
  async findPartnerByApiKey(apiKey: string): Promise<PartnerRecord | undefined> {
    return this.#store.findPartnerByApiKeySha256(sha256Hex(apiKey));
  }

  async findPartner(partnerId: number): Promise<PartnerRecord | undefined> {
    return this.#store.findPartnerById(partnerId);
  }

  /** The secret that signs the partner's webhooks: the one createPartner showed. */
  webhookSecretOf(partner: PartnerRecord): string {
    return deriveWebhookSecret(this.#secretBox.open(partner.appSecretSealed, partner.appKey));
  }

  /**
   * Creates or finds the partner's user (`marchantUserId` per merchant) without opening a session:
   * the legacy interface authenticates with its own token. A null e-mail keeps the one on file.
   */
  async findOrCreateUser(
    partnerId: number,
    marchantUserId: string,
    email: string | null,
  ): Promise<UserRecord> {
    return this.#store.registerUser({
      partnerId,
      marchantUserId,
      email,
      avatarUrl: defaultAvatarUrl,
      nowMs: this.#nowMs(),
    });
  }

  async findUser(userId: number): Promise<UserRecord | undefined> {
    return this.#store.findUserById(userId);
  }

  async revokeSessions(userId: number): Promise<Result<{ revoked: number }>> {
    if ((await this.#store.findUserById(userId)) === undefined) {
      return { ok: false, rejection: reject("USER_NOT_FOUND") };
    }
    return { ok: true, value: { revoked: await this.#store.revokeUserSessions(userId, this.#nowMs()) } };
  }
}

/** Checks a presented API key against the partner's stored hash. */
export function apiKeyMatches(partner: AuthenticatedPartner, apiKey: string): boolean {
  return constantTimeEqual(partner.apiKeySha256, sha256Hex(apiKey));
}
