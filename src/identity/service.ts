// Partners, users and sessions (DESIGN §4): the rules, independent of HTTP. API surfaces call this;
// it calls the identity store. Secrets are generated, sealed and hashed here and nowhere else.

import { constantTimeEqual } from "../contract/signing/gateway-signature.js";
import { type Rejection, reject } from "../core/errors.js";
import type { AppKeyRecord } from "../gateway/verifier.js";
import type {
  IdentityStore,
  PartnerRecord,
  PartnerSettingsUpdate,
  SessionRecord,
  UserRecord,
} from "../store/identity.js";
import { generatePartnerCredentials, generateSessionToken, sha256Hex } from "./credentials.js";
import type { SecretBox } from "./secret-box.js";
import { deriveWebhookSecret } from "./webhook-secret.js";

export type Result<Value> =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly rejection: Rejection };

/** A user may hold this many live sessions (several devices); registering beyond it drops the oldest. */
export const sessionsPerUserMax = 20;
/**
 * A partner found by its APP Key is kept this long at most: past it, a request waits for a fresh read
 * (the bound on how stale a node may be while its refreshes fail).
 */
export const partnerCacheTtlMs = 60_000;
/**
 * A kept partner older than this is read again in the background (the request is answered from the
 * copy kept meanwhile), so a change made through another node, such as the operator requiring a
 * signed nonce, applies on this one within about this long. The node that makes a change drops its
 * copy at once.
 */
export const partnerRefreshMs = 1_000;
export const partnerCacheEntriesMax = 10_000;
/** Users get this picture until a profile operation lets them choose one. */
export const defaultAvatarUrl = "https://assets.predex.dev/avatars/default.png";

/** What the gateway and the service layer know about an authenticated partner. */
export interface AuthenticatedPartner extends AppKeyRecord {
  /** The partner's id as the wire shows it (`merchantId`, a string). */
  readonly merchantId: string;
  readonly apiKeySha256: string;
  readonly signedNonceRequired: boolean;
}

interface KeptPartner {
  readonly partner: AuthenticatedPartner;
  /** The sealed APP Secret it was opened from: a refresh that finds the same one skips decryption. */
  readonly appSecretSealed: string;
  readonly loadedAtMs: number;
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
  readonly #partnersByAppKey = new Map<string, KeptPartner>();
  /** APP Keys being read again in the background (one read per key at a time). */
  readonly #refreshing = new Set<string>();
  /**
   * Bumped by every change made through this node: a read that began before it may hold the row
   * from before the change, so it is answered but not kept.
   */
  #partnerChanges = 0;

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

  /**
   * The gateway's APP Key lookup. Cached: it runs on every request, and decryption is not free. A
   * cached key is returned as is, not in a promise: the verifier then checks the request without
   * waiting a microtask (src/gateway/verifier.ts, MaybeVerdict).
   */
  lookupAppKey(appKey: string): AuthenticatedPartner | undefined | Promise<AuthenticatedPartner | undefined> {
    const nowMs = this.#nowMs();
    const kept = this.#partnersByAppKey.get(appKey);
    if (kept !== undefined && nowMs - kept.loadedAtMs < partnerCacheTtlMs) {
      if (nowMs - kept.loadedAtMs >= partnerRefreshMs) this.#refreshInBackground(appKey);
      return kept.partner;
    }
    return this.#loadPartner(appKey, nowMs);
  }

  /**
   * Changes a partner's settings (the operator's `POST /admin/partners/{merchantId}`). This node
   * applies them from its next request; every other node within partnerRefreshMs.
   */
  async updatePartnerSettings(
    partnerId: number,
    update: PartnerSettingsUpdate,
  ): Promise<Result<PartnerRecord>> {
    this.#partnerChanges += 1;
    const partner = await this.#store.updatePartnerSettings(partnerId, update);
    this.#partnerChanges += 1;
    if (partner === undefined) return { ok: false, rejection: reject("PARTNER_NOT_FOUND") };
    this.#partnersByAppKey.delete(partner.appKey);
    return { ok: true, value: partner };
  }

  async #loadPartner(appKey: string, nowMs: number): Promise<AuthenticatedPartner | undefined> {
    const changesBefore = this.#partnerChanges;
    const record = await this.#store.findPartnerByAppKey(appKey);
    if (record === undefined) {
      this.#partnersByAppKey.delete(appKey);
      return undefined;
    }
    const kept = this.#partnersByAppKey.get(appKey);
    const partner: AuthenticatedPartner = {
      appKey: record.appKey,
      appSecret:
        kept?.appSecretSealed === record.appSecretSealed
          ? kept.partner.appSecret
          : this.#secretBox.open(record.appSecretSealed, record.appKey),
      partnerId: record.partnerId,
      merchantId: String(record.partnerId),
      apiKeySha256: record.apiKeySha256,
      signedNonceRequired: record.signedNonceRequired,
    };
    if (changesBefore === this.#partnerChanges) {
      if (kept === undefined && this.#partnersByAppKey.size >= partnerCacheEntriesMax) {
        this.#partnersByAppKey.clear();
      }
      this.#partnersByAppKey.set(appKey, {
        partner,
        appSecretSealed: record.appSecretSealed,
        loadedAtMs: nowMs,
      });
    }
    return partner;
  }

  #refreshInBackground(appKey: string): void {
    if (this.#refreshing.has(appKey)) return;
    this.#refreshing.add(appKey);
    // A failed read keeps the copy until partnerCacheTtlMs; a later request tries again.
    this.#loadPartner(appKey, this.#nowMs())
      .catch(() => undefined)
      .finally(() => this.#refreshing.delete(appKey));
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

  /**
   * The session's user, or undefined when the token is unknown, expired, revoked or another
   * partner's. A session the store keeps in memory is answered as is, without a promise.
   */
  resolveSession(
    sessionToken: string,
    partnerId: number,
  ): SessionUser | undefined | Promise<SessionUser | undefined> {
    const found = this.#store.findSession(sha256Hex(sessionToken));
    if (found instanceof Promise) return found.then((session) => this.#sessionUser(session, partnerId));
    return this.#sessionUser(found, partnerId);
  }

  #sessionUser(session: SessionRecord | undefined, partnerId: number): SessionUser | undefined {
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
