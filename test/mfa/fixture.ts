// A MFA service over an identity and MFA store (in-memory SQLite by default, PostgreSQL in
// test/store/postgres-services.test.ts), a capturing mailer and a clock the test moves.

import { randomBytes } from "node:crypto";
import { createSecretBox } from "../../src/identity/secret-box.js";
import type { Mailer, MailMessage, MailResult } from "../../src/mfa/mailer.js";
import { createCodeHasher } from "../../src/mfa/secrets.js";
import { MfaService } from "../../src/mfa/service.js";
import { totpCodeAt } from "../../src/mfa/totp.js";
import type { IdentityStore } from "../../src/store/identity.js";
import type { MfaStore } from "../../src/store/mfa.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { createSqliteIdentityStore } from "../../src/store/sqlite/identity.js";
import { createSqliteMfaStore } from "../../src/store/sqlite/mfa.js";

/** A time in the middle of a 30-second TOTP step, so ±1 step is exactly ±30 s. */
export const startMs = Date.UTC(2026, 10, 22, 10, 0, 15);

export class CapturingMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  failing = false;

  async send(message: MailMessage): Promise<MailResult> {
    if (this.failing) return { sent: false, reason: "connection refused" };
    this.sent.push(message);
    return { sent: true };
  }

  /** The 6-digit code of the last mail. */
  lastCode(): string {
    const code = /\b(\d{6})\b/.exec(this.sent.at(-1)?.text ?? "")?.[1];
    if (code === undefined) throw new Error("no code mailed");
    return code;
  }
}

export interface MfaFixture {
  /** Every row of the MFA accounts and recovery codes as text, to check what is kept at rest. */
  dumpAtRest(): Promise<string>;
  readonly service: MfaService;
  readonly mailer: CapturingMailer;
  /** Registers a new user and returns its id. */
  user(): Promise<number>;
  /** Sets up and enables TOTP; returns the secret and the recovery codes. */
  enrolled(userId: number, nowMs: number): Promise<{ secret: string; recoveryCodes: string[] }>;
}

let merchantUserCounter = 0;

/** The stores a fixture runs on: one adapter's identity and MFA stores over one database. */
export interface MfaStores {
  readonly identity: IdentityStore;
  readonly mfa: MfaStore;
  dumpAtRest(): Promise<string>;
}

export function sqliteMfaStores(): Promise<MfaStores> {
  const db = openDatabase({ path: ":memory:" });
  return Promise.resolve({
    identity: createSqliteIdentityStore(db),
    mfa: createSqliteMfaStore(db),
    async dumpAtRest() {
      return JSON.stringify([
        db.prepare("SELECT * FROM mfa_accounts").all(),
        db.prepare("SELECT * FROM mfa_recovery_codes").all(),
      ]);
    },
  });
}

export async function mfaFixture(stores: Promise<MfaStores> = sqliteMfaStores()): Promise<MfaFixture> {
  const { identity, mfa, dumpAtRest } = await stores;
  const partner = await identity.createPartner({
    name: "mfa-test",
    appKey: "app-key",
    appSecretSealed: "sealed",
    apiKeySha256: "hash",
    rsaPublicKey: null,
    commissionRateBps: 0,
    webhookUrl: null,
    createdAtMs: startMs,
  });
  const masterKey = randomBytes(32);
  const mailer = new CapturingMailer();
  const service = new MfaService({
    store: mfa,
    secretBox: createSecretBox(masterKey),
    codeHasher: createCodeHasher(masterKey),
    mailer,
    users: { findUser: async (userId) => identity.findUserById(userId) },
  });
  return {
    dumpAtRest,
    service,
    mailer,
    async user() {
      merchantUserCounter += 1;
      const user = await identity.registerUser({
        partnerId: partner.partnerId,
        marchantUserId: `m-${merchantUserCounter}`,
        email: `alice${merchantUserCounter}@example.com`,
        avatarUrl: "",
        nowMs: startMs,
      });
      return user.userId;
    },
    async enrolled(userId, nowMs) {
      const setup = await service.setupTotp(userId, nowMs);
      if (!setup.ok) throw new Error(setup.rejection.message);
      const enabled = await service.enableTotp(userId, totpCodeAt(setup.value.secret, nowMs), nowMs);
      if (!enabled.ok) throw new Error(enabled.rejection.message);
      return { secret: setup.value.secret, recoveryCodes: enabled.value.recoveryCodes };
    },
  };
}
