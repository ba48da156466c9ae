// What the platform keeps for multi-factor authentication. Nothing arrives here in clear: the TOTP
// secret is sealed with the master key, codes and tickets are hashed. Every operation that decides
// something under concurrency (a replayed TOTP step, a code or ticket used twice, the failure
// counter, the email send limit) is one atomic call, so two requests racing each other cannot both
// win, on one node or on several sharing PostgreSQL.

import {
  type BoundStatements,
  ddl,
  type IntegerColumn,
  mapped,
  type Sql,
  sql,
  toNumber,
  toNumberOrNull,
} from "./sql.js";

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

// ---- What both adapters store: one schema (its few dialect words switched), one row type and
// mapper per record, the statements both run and the decisions of the check-and-set operations. How
// those are made atomic stays each adapter's: SQLite's because better-sqlite3 runs a transaction
// without interleaving, PostgreSQL's by conditional statements and row locks.

export const mfaMigrations: readonly Sql[] = [
  sql`CREATE TABLE mfa_accounts (
     user_id ${ddl.int64} PRIMARY KEY REFERENCES identity_users (user_id),
     totp_secret_sealed text,
     totp_enabled_at_ms ${ddl.int64},
     totp_last_time_step ${ddl.int64},
     pending_totp_secret_sealed text,
     pending_totp_created_at_ms ${ddl.int64},
     failed_attempts integer NOT NULL DEFAULT 0,
     locked_until_ms ${ddl.int64}
   );
   CREATE TABLE mfa_email_codes (
     code_id ${ddl.autoId},
     user_id ${ddl.int64} NOT NULL REFERENCES identity_users (user_id),
     code_hash text NOT NULL,
     sent_at_ms ${ddl.int64} NOT NULL,
     expires_at_ms ${ddl.int64} NOT NULL,
     consumed_at_ms ${ddl.int64}
   );
   CREATE INDEX mfa_email_codes_by_user ON mfa_email_codes (user_id, sent_at_ms);
   CREATE TABLE mfa_recovery_codes (
     user_id ${ddl.int64} NOT NULL REFERENCES identity_users (user_id),
     code_hash text NOT NULL,
     created_at_ms ${ddl.int64} NOT NULL,
     used_at_ms ${ddl.int64},
     PRIMARY KEY (user_id, code_hash)
   );
   CREATE TABLE mfa_tickets (
     ticket_hash text PRIMARY KEY,
     user_id ${ddl.int64} NOT NULL REFERENCES identity_users (user_id),
     purpose text NOT NULL,
     method text NOT NULL,
     created_at_ms ${ddl.int64} NOT NULL,
     expires_at_ms ${ddl.int64} NOT NULL,
     consumed_at_ms ${ddl.int64}
   );
   CREATE INDEX mfa_tickets_by_user ON mfa_tickets (user_id);`,
];

/** `I`: how the driver reads integers (SQLite: number, PostgreSQL: bigint). */
export interface MfaAccountRow<I extends IntegerColumn = IntegerColumn> {
  user_id: I;
  totp_secret_sealed: string | null;
  totp_enabled_at_ms: I | null;
  totp_last_time_step: I | null;
  pending_totp_secret_sealed: string | null;
  pending_totp_created_at_ms: I | null;
  failed_attempts: number;
  locked_until_ms: I | null;
}

export interface EmailCodeRow<I extends IntegerColumn = IntegerColumn> {
  code_id: I;
  user_id: I;
  code_hash: string;
  sent_at_ms: I;
  expires_at_ms: I;
  consumed_at_ms: I | null;
}

export interface TicketRow<I extends IntegerColumn = IntegerColumn> {
  ticket_hash: string;
  user_id: I;
  purpose: string;
  method: string;
  created_at_ms: I;
  expires_at_ms: I;
  consumed_at_ms: I | null;
}

export function accountFromRow(row: MfaAccountRow): MfaAccountRecord {
  return {
    userId: toNumber(row.user_id),
    totpSecretSealed: row.totp_secret_sealed,
    totpEnabledAtMs: toNumberOrNull(row.totp_enabled_at_ms),
    totpLastTimeStep: toNumberOrNull(row.totp_last_time_step),
    pendingTotpSecretSealed: row.pending_totp_secret_sealed,
    pendingTotpCreatedAtMs: toNumberOrNull(row.pending_totp_created_at_ms),
    failedAttempts: row.failed_attempts,
    lockedUntilMs: toNumberOrNull(row.locked_until_ms),
  };
}

export function emailCodeFromRow(row: EmailCodeRow): EmailCodeRecord {
  return {
    codeId: toNumber(row.code_id),
    userId: toNumber(row.user_id),
    codeHash: row.code_hash,
    sentAtMs: toNumber(row.sent_at_ms),
    expiresAtMs: toNumber(row.expires_at_ms),
    consumedAtMs: toNumberOrNull(row.consumed_at_ms),
  };
}

export function ticketFromRow(row: TicketRow): TicketRecord {
  return {
    ticketHash: row.ticket_hash,
    userId: toNumber(row.user_id),
    purpose: row.purpose,
    method: row.method,
    createdAtMs: toNumber(row.created_at_ms),
    expiresAtMs: toNumber(row.expires_at_ms),
    consumedAtMs: toNumberOrNull(row.consumed_at_ms),
  };
}

/** Everything an MFA statement binds; each statement reads only the names it uses. */
export type MfaParams = {
  readonly userId?: number;
  readonly codeId?: number;
  readonly secretSealed?: string;
  readonly pendingSecretSealed?: string;
  readonly timeStep?: number;
  readonly nowMs?: number;
  readonly failed?: number;
  readonly lockedUntilMs?: number | null;
  readonly codeHash?: string;
  readonly expiresAtMs?: number;
  readonly sinceMs?: number;
  readonly beforeMs?: number;
  readonly ticketHash?: string;
  readonly purpose?: string;
};

/** The statements both adapters run (the dialect-specific ones stay in each adapter). */
export const mfaStatements = {
  accountById: sql<MfaParams>`SELECT * FROM mfa_accounts WHERE user_id = ${"userId"}`,
  ensureAccount: sql<MfaParams>`INSERT INTO mfa_accounts (user_id) VALUES (${"userId"}) ON CONFLICT DO NOTHING`,
  savePending: sql<MfaParams>`INSERT INTO mfa_accounts AS accounts (user_id, pending_totp_secret_sealed, pending_totp_created_at_ms)
     VALUES (${"userId"}, ${"secretSealed"}, ${"nowMs"})
     ON CONFLICT (user_id) DO UPDATE SET pending_totp_secret_sealed = ${"secretSealed"}, pending_totp_created_at_ms = ${"nowMs"}`,
  enable: sql<MfaParams>`UPDATE mfa_accounts SET totp_secret_sealed = pending_totp_secret_sealed,
       totp_enabled_at_ms = ${"nowMs"}, totp_last_time_step = ${"timeStep"},
       pending_totp_secret_sealed = NULL, pending_totp_created_at_ms = NULL
     WHERE user_id = ${"userId"} AND totp_secret_sealed IS NULL AND pending_totp_secret_sealed = ${"pendingSecretSealed"}`,
  disable: sql<MfaParams>`UPDATE mfa_accounts SET totp_secret_sealed = NULL, totp_enabled_at_ms = NULL,
       totp_last_time_step = NULL, pending_totp_secret_sealed = NULL, pending_totp_created_at_ms = NULL
     WHERE user_id = ${"userId"} AND totp_secret_sealed = ${"secretSealed"}`,
  claimStep: sql<MfaParams>`UPDATE mfa_accounts SET totp_last_time_step = ${"timeStep"}
     WHERE user_id = ${"userId"} AND (totp_last_time_step IS NULL OR totp_last_time_step < ${"timeStep"})`,
  setAttempts: sql<MfaParams>`UPDATE mfa_accounts SET failed_attempts = ${"failed"}, locked_until_ms = ${"lockedUntilMs"}
     WHERE user_id = ${"userId"}`,
  insertEmailCode: sql<MfaParams>`INSERT INTO mfa_email_codes (user_id, code_hash, sent_at_ms, expires_at_ms)
     VALUES (${"userId"}, ${"codeHash"}, ${"nowMs"}, ${"expiresAtMs"}) RETURNING code_id`,
  emailSendsSince: sql<MfaParams>`SELECT sent_at_ms FROM mfa_email_codes
     WHERE user_id = ${"userId"} AND sent_at_ms > ${"sinceMs"} ORDER BY sent_at_ms`,
  // Rows older than the send window matter for nothing once a newer code exists.
  pruneEmailCodes: sql<MfaParams>`DELETE FROM mfa_email_codes WHERE user_id = ${"userId"} AND sent_at_ms <= ${"beforeMs"}
       AND code_id <> (SELECT max(code_id) FROM mfa_email_codes WHERE user_id = ${"userId"})`,
  deleteEmailCode: sql<MfaParams>`DELETE FROM mfa_email_codes WHERE code_id = ${"codeId"}`,
  latestEmailCode: sql<MfaParams>`SELECT * FROM mfa_email_codes WHERE user_id = ${"userId"} ORDER BY code_id DESC LIMIT 1`,
  consumeEmailCode: sql<MfaParams>`UPDATE mfa_email_codes SET consumed_at_ms = ${"nowMs"}
     WHERE code_id = ${"codeId"} AND consumed_at_ms IS NULL`,
  countUnusedRecovery: sql<MfaParams>`SELECT count(*) AS count FROM mfa_recovery_codes
     WHERE user_id = ${"userId"} AND used_at_ms IS NULL`,
  deleteRecovery: sql<MfaParams>`DELETE FROM mfa_recovery_codes WHERE user_id = ${"userId"}`,
  consumeTicket: sql<MfaParams>`UPDATE mfa_tickets SET consumed_at_ms = ${"nowMs"}
     WHERE ticket_hash = ${"ticketHash"} AND user_id = ${"userId"} AND purpose = ${"purpose"}
       AND consumed_at_ms IS NULL AND expires_at_ms > ${"nowMs"}`,
  ticketByHash: sql<MfaParams>`SELECT * FROM mfa_tickets WHERE ticket_hash = ${"ticketHash"}`,
} as const;

/** What a check does to the account row (`failed_attempts`, `locked_until_ms`), if anything, and answers. */
export interface AttemptStep<Answer> {
  readonly write?: { readonly failed: number; readonly lockedUntilMs: number | null };
  readonly answer: Answer;
}

/** beginAttempt's decision over the user's account row (read under the adapter's lock). */
export function beginAttemptStep(
  row: MfaAccountRow,
  nowMs: number,
  policy: AttemptPolicy,
): AttemptStep<AttemptGrant> {
  let failed = row.failed_attempts;
  const lockedUntil = toNumberOrNull(row.locked_until_ms);
  if (lockedUntil !== null) {
    if (lockedUntil > nowMs) return { answer: { granted: false, retryAtMs: lockedUntil } };
    failed = 0;
  }
  if (failed >= policy.attemptsMax) {
    // The budget is taken by checks still in flight, or by checks a crash never settled: lock, so
    // the account cannot stay refused forever.
    const lockedUntilMs = nowMs + policy.lockDurationMs;
    return { write: { failed, lockedUntilMs }, answer: { granted: false, retryAtMs: lockedUntilMs } };
  }
  return { write: { failed: failed + 1, lockedUntilMs: null }, answer: { granted: true } };
}

/** settleFailedAttempt's decision over the user's account row (read under the adapter's lock). */
export function settleFailedAttemptStep(
  row: MfaAccountRow,
  nowMs: number,
  policy: AttemptPolicy,
): AttemptStep<{ lockedUntilMs: number | null }> {
  const lockedUntil = toNumberOrNull(row.locked_until_ms);
  if (row.failed_attempts < policy.attemptsMax) return { answer: { lockedUntilMs: lockedUntil } };
  const lockedUntilMs = lockedUntil ?? nowMs + policy.lockDurationMs;
  return { write: { failed: row.failed_attempts, lockedUntilMs }, answer: { lockedUntilMs } };
}

/** The next time a send is allowed, from the user's sends within the window (oldest first). */
export function nextEmailSendAt(
  sendsAtMs: readonly number[],
  nowMs: number,
  policy: EmailSendPolicy,
): number {
  const last = sendsAtMs.at(-1);
  let nextMs = nowMs;
  if (last !== undefined) nextMs = Math.max(nextMs, last + policy.intervalMs);
  if (sendsAtMs.length >= policy.perWindowMax) {
    // The oldest send in the window must drop out of it before another is allowed.
    nextMs = Math.max(nextMs, sendsAtMs[sendsAtMs.length - policy.perWindowMax]! + policy.windowMs);
  }
  return nextMs;
}

/** The store's methods that are one shared statement each, outside any transaction. */
export type MfaSingleStatementMethods =
  | "findAccount"
  | "savePendingTotp"
  | "claimTotpTimeStep"
  | "resetFailedAttempts"
  | "cancelEmailCode"
  | "latestEmailCode"
  | "consumeEmailCode"
  | "nextEmailSendAtMs"
  | "countUnusedRecoveryCodes"
  | "consumeTicket"
  | "findTicket";

/**
 * Those methods written once, on the port's statements bound to either database; each adapter adds
 * the methods that need its own transactions (a SQLite one is synchronous, a PostgreSQL one locks).
 */
export function mfaSingleStatementsOn(
  statements: BoundStatements<typeof mfaStatements>,
): Pick<MfaStore, MfaSingleStatementMethods> {
  const changedOne = async (changed: Promise<number>) => (await changed) === 1;
  return {
    findAccount: async (userId) =>
      mapped(await statements.accountById.row<MfaAccountRow>({ userId }), accountFromRow),
    async savePendingTotp(userId, secretSealed, nowMs) {
      await statements.savePending.run({ userId, secretSealed, nowMs });
    },
    claimTotpTimeStep: (userId, timeStep) => changedOne(statements.claimStep.run({ userId, timeStep })),
    async resetFailedAttempts(userId) {
      await statements.setAttempts.run({ userId, failed: 0, lockedUntilMs: null });
    },
    async cancelEmailCode(codeId) {
      await statements.deleteEmailCode.run({ codeId });
    },
    latestEmailCode: async (userId) =>
      mapped(await statements.latestEmailCode.row<EmailCodeRow>({ userId }), emailCodeFromRow),
    consumeEmailCode: (codeId, nowMs) => changedOne(statements.consumeEmailCode.run({ codeId, nowMs })),
    async nextEmailSendAtMs(userId, nowMs, policy) {
      const sinceMs = nowMs - policy.windowMs;
      const sends = await statements.emailSendsSince.rows<{ sent_at_ms: IntegerColumn }>({ userId, sinceMs });
      return nextEmailSendAt(
        sends.map((row) => toNumber(row.sent_at_ms)),
        nowMs,
        policy,
      );
    },
    countUnusedRecoveryCodes: async (userId) =>
      toNumber((await statements.countUnusedRecovery.row<{ count: IntegerColumn }>({ userId }))!.count),
    consumeTicket: (input) => changedOne(statements.consumeTicket.run(input)),
    findTicket: async (ticketHash) =>
      mapped(await statements.ticketByHash.row<TicketRow>({ ticketHash }), ticketFromRow),
  };
}
