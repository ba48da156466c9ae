// Multi-factor authentication (DESIGN §4): TOTP, email codes, recovery codes, and the short-lived
// single-use tickets that sensitive operations (withdrawals) ask for. The rules live here,
// independent of HTTP; time is an input (`nowMs`) so tests can move the clock.
//
// Every code check goes through #checkCode: it first takes an attempt from the user's budget (a
// check counts as failed until it succeeds), so five wrong codes lock the user's MFA even when they
// arrive all at once. Nothing else a refused request does changes state.

import { constantTimeEqual } from "../contract/signing/gateway-signature.js";
import type { SecretBox } from "../identity/secret-box.js";
import type { MfaAccountRecord, MfaStore } from "../store/mfa.js";
import {
  locked,
  type MfaRejection,
  type MfaResult,
  mfaRejections,
  rateLimited,
  refuse,
  succeed,
} from "./errors.js";
import type { Mailer } from "./mailer.js";
import {
  emailCodeTtlMs,
  emailSendIntervalMs,
  emailSendsPerWindowMax,
  emailSendWindowMs,
  failedAttemptsMax,
  lockDurationMs,
  type TicketPurpose,
  ticketTtlMs,
  totpSetupTtlMs,
  type VerifyMethod,
} from "./policy.js";
import {
  type CodeHasher,
  createEmailCode,
  createRecoveryCodes,
  createTicket,
  hashTicket,
  isEmailCodeShaped,
  normalizeRecoveryCode,
} from "./secrets.js";
import { checkTotpCode, createTotpSecret, totpUri } from "./totp.js";

const attemptPolicy = { attemptsMax: failedAttemptsMax, lockDurationMs };
const emailSendPolicy = {
  intervalMs: emailSendIntervalMs,
  windowMs: emailSendWindowMs,
  perWindowMax: emailSendsPerWindowMax,
};

/** Presented tickets longer than this are not ours; they are refused before any hashing. */
export const ticketLengthMax = 128;

/** Where the service finds a user's email address (the identity service fits). */
export interface MfaUserDirectory {
  findUser(userId: number): Promise<{ readonly email: string } | undefined>;
}

export interface MfaServiceOptions {
  readonly store: MfaStore;
  /** Seals TOTP secrets at rest under the platform's master key (the box that seals APP Secrets). */
  readonly secretBox: SecretBox;
  readonly codeHasher: CodeHasher;
  readonly mailer: Mailer;
  readonly users: MfaUserDirectory;
}

export interface MfaStatus {
  /** True while TOTP is on; withdrawals then need a ticket. */
  readonly mfaEnabled: boolean;
  readonly totpEnabled: boolean;
  readonly totpEnabledAtMs: number | null;
  /** A setup was started and can still be confirmed with /totp/enable. */
  readonly totpSetupPending: boolean;
  readonly maskedEmail: string;
  readonly recoveryCodesRemaining: number;
  /** The methods /verify accepts for this user now. */
  readonly availableMethods: readonly VerifyMethod[];
  readonly attemptsRemaining: number;
  readonly lockedUntilMs: number | null;
}

export interface TotpSetup {
  readonly secret: string;
  readonly otpauthUri: string;
  readonly expiresAtMs: number;
}

export interface EmailCodeSent {
  readonly maskedEmail: string;
  readonly expiresAtMs: number;
  readonly nextSendAtMs: number;
}

export interface CodeProof {
  readonly method: "totp" | "recovery";
  readonly code: string;
}

export interface VerifyInput {
  readonly method: VerifyMethod;
  readonly code: string;
  readonly purpose: TicketPurpose;
}

export interface IssuedTicket {
  readonly ticket: string;
  readonly purpose: TicketPurpose;
  readonly method: VerifyMethod;
  readonly expiresAtMs: number;
}

export class MfaService {
  readonly #store: MfaStore;
  readonly #secretBox: SecretBox;
  readonly #codeHasher: CodeHasher;
  readonly #mailer: Mailer;
  readonly #users: MfaUserDirectory;

  constructor(options: MfaServiceOptions) {
    this.#store = options.store;
    this.#secretBox = options.secretBox;
    this.#codeHasher = options.codeHasher;
    this.#mailer = options.mailer;
    this.#users = options.users;
  }

  /** True when the user has TOTP on: sensitive operations must then present an MFA ticket. */
  async isMfaEnabled(userId: number): Promise<boolean> {
    return isTotpEnabled(await this.#store.findAccount(userId));
  }

  async status(userId: number, nowMs: number): Promise<MfaStatus> {
    const account = await this.#store.findAccount(userId);
    const totpEnabled = isTotpEnabled(account);
    const recoveryCodesRemaining = totpEnabled ? await this.#store.countUnusedRecoveryCodes(userId) : 0;
    const lockedUntilMs =
      account?.lockedUntilMs !== undefined && account.lockedUntilMs !== null && account.lockedUntilMs > nowMs
        ? account.lockedUntilMs
        : null;
    const failedAttempts =
      account === undefined || account.lockedUntilMs !== null ? 0 : account.failedAttempts;
    const methods: VerifyMethod[] = totpEnabled ? ["totp", "email"] : ["email"];
    if (recoveryCodesRemaining > 0) methods.push("recovery");
    return {
      mfaEnabled: totpEnabled,
      totpEnabled,
      totpEnabledAtMs: account?.totpEnabledAtMs ?? null,
      totpSetupPending: !totpEnabled && pendingSetupAlive(account, nowMs),
      maskedEmail: maskEmail((await this.#users.findUser(userId))?.email ?? ""),
      recoveryCodesRemaining,
      availableMethods: methods,
      attemptsRemaining: lockedUntilMs === null ? Math.max(0, failedAttemptsMax - failedAttempts) : 0,
      lockedUntilMs,
    };
  }

  /** Starts (or restarts) TOTP enrolment: a new secret, shown once, confirmed by /totp/enable. */
  async setupTotp(userId: number, nowMs: number): Promise<MfaResult<TotpSetup>> {
    const account = await this.#store.findAccount(userId);
    if (isTotpEnabled(account)) return refuse(mfaRejections.totpAlreadyEnabled);
    const user = await this.#users.findUser(userId);
    const secret = createTotpSecret();
    await this.#store.savePendingTotp(userId, this.#seal(userId, secret), nowMs);
    return succeed({
      secret,
      otpauthUri: totpUri(secret, user?.email || `user${userId}`),
      expiresAtMs: nowMs + totpSetupTtlMs,
    });
  }

  /** Confirms the pending secret with a code from the app; returns the first set of recovery codes. */
  async enableTotp(
    userId: number,
    code: string,
    nowMs: number,
  ): Promise<MfaResult<{ recoveryCodes: string[]; enabledAtMs: number }>> {
    const account = await this.#store.findAccount(userId);
    if (isTotpEnabled(account)) return refuse(mfaRejections.totpAlreadyEnabled);
    const pendingSealed = account?.pendingTotpSecretSealed ?? null;
    if (account === undefined || pendingSealed === null) return refuse(mfaRejections.setupNotStarted);
    if (!pendingSetupAlive(account, nowMs)) return refuse(mfaRejections.setupExpired);
    const checked = await this.#checkCode(userId, nowMs, async () => {
      const result = checkTotpCode(this.#open(userId, pendingSealed), code, nowMs, null);
      return result.kind === "accepted" ? succeed(result.timeStep) : refuse(mfaRejections.invalidCode);
    });
    if (!checked.ok) return checked;
    const recoveryCodes = createRecoveryCodes();
    const enabled = await this.#store.enableTotp({
      userId,
      pendingSecretSealed: pendingSealed,
      timeStep: checked.value,
      recoveryCodeHashes: this.#hashRecoveryCodes(userId, recoveryCodes),
      nowMs,
    });
    if (!enabled) return refuse(mfaRejections.stateChanged);
    return succeed({ recoveryCodes, enabledAtMs: nowMs });
  }

  /** Turns TOTP off (and drops the recovery codes), proven with a TOTP or a recovery code. */
  async disableTotp(
    userId: number,
    proof: CodeProof,
    nowMs: number,
  ): Promise<MfaResult<{ disabledAtMs: number }>> {
    const account = await this.#store.findAccount(userId);
    const secretSealed = account?.totpSecretSealed ?? null;
    if (secretSealed === null) return refuse(mfaRejections.totpDisabled);
    const checked = await this.#checkCode(userId, nowMs, () =>
      this.#matchProof(userId, secretSealed, account, proof, nowMs),
    );
    if (!checked.ok) return checked;
    if (!(await this.#store.disableTotp(userId, secretSealed))) return refuse(mfaRejections.stateChanged);
    return succeed({ disabledAtMs: nowMs });
  }

  /** Replaces every recovery code with a fresh set, shown once; proven with a TOTP or a recovery code. */
  async regenerateRecoveryCodes(
    userId: number,
    proof: CodeProof,
    nowMs: number,
  ): Promise<MfaResult<{ recoveryCodes: string[] }>> {
    const account = await this.#store.findAccount(userId);
    const secretSealed = account?.totpSecretSealed ?? null;
    if (secretSealed === null) return refuse(mfaRejections.totpDisabled);
    const checked = await this.#checkCode(userId, nowMs, () =>
      this.#matchProof(userId, secretSealed, account, proof, nowMs),
    );
    if (!checked.ok) return checked;
    const recoveryCodes = createRecoveryCodes();
    await this.#store.replaceRecoveryCodes(userId, this.#hashRecoveryCodes(userId, recoveryCodes), nowMs);
    return succeed({ recoveryCodes });
  }

  /** Emails a fresh 6-digit code to the user's address; earlier codes stop working. */
  async sendEmailCode(userId: number, nowMs: number): Promise<MfaResult<EmailCodeSent>> {
    const account = await this.#store.findAccount(userId);
    // A code that could not be used while the lock lasts is not worth a mail.
    if (account?.lockedUntilMs != null && account.lockedUntilMs > nowMs)
      return refuse(locked(account.lockedUntilMs));
    const email = (await this.#users.findUser(userId))?.email ?? "";
    const code = createEmailCode();
    const expiresAtMs = nowMs + emailCodeTtlMs;
    const reservation = await this.#store.reserveEmailCode(
      { userId, codeHash: this.#codeHasher.hash(userId, "email", code), nowMs, expiresAtMs },
      emailSendPolicy,
    );
    if (!reservation.reserved) return refuse(rateLimited(reservation.retryAtMs));
    const mail = await this.#mailer.send({
      to: email,
      subject: `Your predex verification code: ${code}`,
      text: [
        `Your predex verification code is ${code}.`,
        `It expires in ${emailCodeTtlMs / 60_000} minutes and works once.`,
        "If you did not ask for it, ignore this email; nobody can use it without your account.",
      ].join("\n"),
    });
    if (!mail.sent) {
      await this.#store.cancelEmailCode(reservation.codeId);
      return refuse(mfaRejections.mailUnavailable);
    }
    return succeed({
      maskedEmail: maskEmail(email),
      expiresAtMs,
      nextSendAtMs: await this.#store.nextEmailSendAtMs(userId, nowMs, emailSendPolicy),
    });
  }

  /** Checks a code of any available method and issues a ticket for one sensitive operation. */
  async verify(userId: number, input: VerifyInput, nowMs: number): Promise<MfaResult<IssuedTicket>> {
    const account = await this.#store.findAccount(userId);
    let match: () => Promise<MfaResult<null>>;
    if (input.method === "email") {
      match = () => this.#matchEmailCode(userId, input.code, nowMs);
    } else {
      const method = input.method;
      const secretSealed = account?.totpSecretSealed ?? null;
      if (secretSealed === null) {
        return refuse(method === "totp" ? mfaRejections.totpDisabled : mfaRejections.recoveryDisabled);
      }
      match = () => this.#matchProof(userId, secretSealed, account, { method, code: input.code }, nowMs);
    }
    const checked = await this.#checkCode(userId, nowMs, match);
    if (!checked.ok) return checked;
    const ticket = createTicket();
    const expiresAtMs = nowMs + ticketTtlMs;
    await this.#store.insertTicket({
      ticketHash: hashTicket(ticket),
      userId,
      purpose: input.purpose,
      method: input.method,
      createdAtMs: nowMs,
      expiresAtMs,
    });
    return succeed({ ticket, purpose: input.purpose, method: input.method, expiresAtMs });
  }

  /**
   * For the sensitive operation itself (e.g. POST /withdraw/apply): accepts the ticket once, if it
   * was issued to this user for this purpose and has not expired. A refusal is 6001 (unknown,
   * another user's or purpose's, already used) or 6002 (expired) and consumes nothing.
   */
  async consumeMfaTicket(
    userId: number,
    ticket: string,
    purpose: TicketPurpose,
    nowMs: number,
  ): Promise<MfaResult<{ method: VerifyMethod }>> {
    if (ticket.length === 0 || ticket.length > ticketLengthMax) return refuse(mfaRejections.invalidTicket);
    const ticketHash = hashTicket(ticket);
    const consumed = await this.#store.consumeTicket({ ticketHash, userId, purpose, nowMs });
    const record = await this.#store.findTicket(ticketHash);
    if (record === undefined || record.userId !== userId || record.purpose !== purpose) {
      return refuse(mfaRejections.invalidTicket);
    }
    if (consumed) return succeed({ method: record.method as VerifyMethod });
    if (record.consumedAtMs !== null) return refuse(mfaRejections.ticketAlreadyUsed);
    return refuse(mfaRejections.ticketExpired);
  }

  /** Runs one code check against the user's attempt budget; see the file comment. */
  async #checkCode<Value>(
    userId: number,
    nowMs: number,
    match: () => Promise<MfaResult<Value>>,
  ): Promise<MfaResult<Value>> {
    const grant = await this.#store.beginAttempt(userId, nowMs, attemptPolicy);
    if (!grant.granted) return refuse(locked(grant.retryAtMs));
    const matched = await match();
    if (matched.ok) {
      await this.#store.resetFailedAttempts(userId);
      return matched;
    }
    const { lockedUntilMs } = await this.#store.settleFailedAttempt(userId, nowMs, attemptPolicy);
    return lockedUntilMs === null ? matched : refuse(locked(lockedUntilMs));
  }

  async #matchProof(
    userId: number,
    secretSealed: string,
    account: MfaAccountRecord | undefined,
    proof: CodeProof,
    nowMs: number,
  ): Promise<MfaResult<null>> {
    if (proof.method === "recovery") return this.#matchRecoveryCode(userId, proof.code, nowMs);
    const result = checkTotpCode(
      this.#open(userId, secretSealed),
      proof.code,
      nowMs,
      account?.totpLastTimeStep ?? null,
    );
    switch (result.kind) {
      case "accepted":
        // Another request may have accepted a code of this step since the account was read.
        return (await this.#store.claimTotpTimeStep(userId, result.timeStep))
          ? succeed(null)
          : refuse(mfaRejections.codeAlreadyUsed);
      case "replayed":
        return refuse(mfaRejections.codeAlreadyUsed);
      case "wrong":
        return refuse(mfaRejections.invalidCode);
      default: {
        const unreachable: never = result;
        return unreachable;
      }
    }
  }

  async #matchEmailCode(userId: number, code: string, nowMs: number): Promise<MfaResult<null>> {
    const latest = await this.#store.latestEmailCode(userId);
    if (latest === undefined || !isEmailCodeShaped(code)) return refuse(mfaRejections.invalidCode);
    if (!constantTimeEqual(latest.codeHash, this.#codeHasher.hash(userId, "email", code))) {
      return refuse(mfaRejections.invalidCode);
    }
    if (latest.consumedAtMs !== null) return refuse(mfaRejections.codeAlreadyUsed);
    if (latest.expiresAtMs <= nowMs) return refuse(mfaRejections.codeExpired);
    return (await this.#store.consumeEmailCode(latest.codeId, nowMs))
      ? succeed(null)
      : refuse(mfaRejections.codeAlreadyUsed);
  }

  async #matchRecoveryCode(userId: number, code: string, nowMs: number): Promise<MfaResult<null>> {
    const normalized = normalizeRecoveryCode(code);
    if (normalized === undefined) return refuse(mfaRejections.invalidCode);
    const use = await this.#store.consumeRecoveryCode(
      userId,
      this.#codeHasher.hash(userId, "recovery", normalized),
      nowMs,
    );
    switch (use) {
      case "consumed":
        return succeed(null);
      case "already_used":
        return refuse(mfaRejections.codeAlreadyUsed);
      case "unknown":
        return refuse(mfaRejections.invalidCode);
      default: {
        const unreachable: never = use;
        return unreachable;
      }
    }
  }

  #hashRecoveryCodes(userId: number, codes: readonly string[]): string[] {
    return codes.map((code) => this.#codeHasher.hash(userId, "recovery", normalizeRecoveryCode(code)!));
  }

  // The user id is the associated data: a sealed secret copied to another user's row does not open.
  #seal(userId: number, secret: string): string {
    return this.#secretBox.seal(secret, totpSecretContext(userId));
  }

  #open(userId: number, sealed: string): string {
    return this.#secretBox.open(sealed, totpSecretContext(userId));
  }
}

function totpSecretContext(userId: number): string {
  return `mfa-totp:${userId}`;
}

function isTotpEnabled(account: MfaAccountRecord | undefined): boolean {
  return account !== undefined && account.totpSecretSealed !== null;
}

function pendingSetupAlive(account: MfaAccountRecord | undefined, nowMs: number): boolean {
  const createdAtMs = account?.pendingTotpCreatedAtMs ?? null;
  return (
    account?.pendingTotpSecretSealed != null && createdAtMs !== null && nowMs < createdAtMs + totpSetupTtlMs
  );
}

/** `a***@example.com`: enough for the user to recognise the address, not enough to harvest it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return email === "" ? "" : "***";
  return `${email[0]}***${email.slice(at)}`;
}

export type { MfaRejection };
