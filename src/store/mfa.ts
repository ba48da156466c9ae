// What the platform keeps for multi-factor authentication. Nothing arrives here in clear: the TOTP
// secret is sealed with the master key, codes and tickets are hashed. Every operation that decides
// something under concurrency (a replayed TOTP step, a code or ticket used twice, the failure
// counter, the email send limit) is one atomic call, so two requests racing each other cannot both
// win, on one node or on several sharing PostgreSQL.

export interface MfaAccountRecord {
  readonly userId: number;
  /** The enabled TOTP secret (Base32), sealed; null while TOTP is off. */
  readonly totpSecretSealed: string | null;
  readonly totpEnabledAtMs: number | null;
  /** The RFC 6238 time step of the last accepted TOTP code; codes of that step or earlier are replays. */
  readonly totpLastTimeStep: number | null;
  /** A secret handed out by setup and not yet confirmed with a code. */
  readonly pendingTotpSecretSealed: string | null;
  readonly pendingTotpCreatedAtMs: number | null;
  /** Code checks begun since the last success (a check counts as failed until it succeeds). */
  readonly failedAttempts: number;
  readonly lockedUntilMs: number | null;
}

export interface AttemptPolicy {
  readonly attemptsMax: number;
  readonly lockDurationMs: number;
}

export type AttemptGrant =
  | { readonly granted: true }
  | { readonly granted: false; readonly retryAtMs: number };

export interface EnableTotpInput {
  readonly userId: number;
  /** Must still be the pending secret, or another setup won the race and nothing changes. */
  readonly pendingSecretSealed: string;
  readonly timeStep: number;
  readonly recoveryCodeHashes: readonly string[];
  readonly nowMs: number;
}

export interface EmailCodeRecord {
  readonly codeId: number;
  readonly userId: number;
  readonly codeHash: string;
  readonly sentAtMs: number;
  readonly expiresAtMs: number;
  readonly consumedAtMs: number | null;
}

export interface EmailSendPolicy {
  readonly intervalMs: number;
  readonly windowMs: number;
  readonly perWindowMax: number;
}

export type EmailCodeReservation =
  | { readonly reserved: true; readonly codeId: number }
  | { readonly reserved: false; readonly retryAtMs: number };

export type RecoveryCodeUse = "consumed" | "already_used" | "unknown";

export interface TicketRecord {
  readonly ticketHash: string;
  readonly userId: number;
  readonly purpose: string;
  readonly method: string;
  readonly createdAtMs: number;
  readonly expiresAtMs: number;
  readonly consumedAtMs: number | null;
}

export interface MfaStore {
  findAccount(userId: number): Promise<MfaAccountRecord | undefined>;

  /** Replaces any earlier pending secret. */
  savePendingTotp(userId: number, secretSealed: string, nowMs: number): Promise<void>;
  /** Turns the pending secret on and replaces the recovery codes; false when the pending secret changed. */
  enableTotp(input: EnableTotpInput): Promise<boolean>;
  /** Turns TOTP off and deletes the recovery codes; false when the enabled secret is not `secretSealed`. */
  disableTotp(userId: number, secretSealed: string): Promise<boolean>;
  /** Records `timeStep` as used; false when a code of that step or a later one was accepted before. */
  claimTotpTimeStep(userId: number, timeStep: number): Promise<boolean>;

  /**
   * Starts a code check: refused while locked or while `attemptsMax` checks are unresolved;
   * otherwise counts the check as failed until `resetFailedAttempts`. A lock that has run out is
   * lifted here, with the count back at zero.
   */
  beginAttempt(userId: number, nowMs: number, policy: AttemptPolicy): Promise<AttemptGrant>;
  /** After a failed check: locks until `nowMs + lockDurationMs` once `attemptsMax` failures are counted. */
  settleFailedAttempt(
    userId: number,
    nowMs: number,
    policy: AttemptPolicy,
  ): Promise<{ lockedUntilMs: number | null }>;
  resetFailedAttempts(userId: number): Promise<void>;

  /** Stores a new email code unless the send policy forbids it; older codes of the user stop counting. */
  reserveEmailCode(
    input: { userId: number; codeHash: string; nowMs: number; expiresAtMs: number },
    policy: EmailSendPolicy,
  ): Promise<EmailCodeReservation>;
  /** Undoes a reservation whose mail could not be sent, so the failed send costs the user nothing. */
  cancelEmailCode(codeId: number): Promise<void>;
  latestEmailCode(userId: number): Promise<EmailCodeRecord | undefined>;
  /** Marks the code used; false when it was used already. */
  consumeEmailCode(codeId: number, nowMs: number): Promise<boolean>;
  /** The next time a send is allowed (or `nowMs` when it is allowed now). */
  nextEmailSendAtMs(userId: number, nowMs: number, policy: EmailSendPolicy): Promise<number>;

  countUnusedRecoveryCodes(userId: number): Promise<number>;
  replaceRecoveryCodes(userId: number, codeHashes: readonly string[], nowMs: number): Promise<void>;
  consumeRecoveryCode(userId: number, codeHash: string, nowMs: number): Promise<RecoveryCodeUse>;

  /** Stores a ticket; drops the user's expired and used ones. */
  insertTicket(ticket: Omit<TicketRecord, "consumedAtMs">): Promise<void>;
  /** Marks the ticket used if it is the user's, for this purpose, unused and unexpired at `nowMs`. */
  consumeTicket(input: {
    ticketHash: string;
    userId: number;
    purpose: string;
    nowMs: number;
  }): Promise<boolean>;
  findTicket(ticketHash: string): Promise<TicketRecord | undefined>;
}
