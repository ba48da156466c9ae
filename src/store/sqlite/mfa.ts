// SQLite adapter of the MFA store. Tables are prefixed `mfa_`. better-sqlite3 is synchronous, so
// each method body (or its db.transaction) runs without interleaving: that is what makes the
// check-and-set operations of the interface atomic here.

import {
  type AttemptGrant,
  type AttemptPolicy,
  accountFromRow,
  type EmailCodeReservation,
  type EmailCodeRow,
  type EmailSendPolicy,
  type EnableTotpInput,
  emailCodeFromRow,
  type MfaAccountRow,
  type MfaStore,
  mfaMigrations,
  type RecoveryCodeUse,
  type TicketRecord,
  type TicketRow,
  ticketFromRow,
} from "../mfa.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { sqliteText } from "./statements.js";

export function createSqliteMfaStore(db: SqliteDatabase): MfaStore {
  applyMigrations(db, "mfa", mfaMigrations.map(sqliteText));

  const ensureAccount = db.prepare("INSERT INTO mfa_accounts (user_id) VALUES (?) ON CONFLICT DO NOTHING");
  const accountById = db.prepare("SELECT * FROM mfa_accounts WHERE user_id = ?");
  const setPending = db.prepare(
    "UPDATE mfa_accounts SET pending_totp_secret_sealed = ?, pending_totp_created_at_ms = ? WHERE user_id = ?",
  );
  const enable = db.prepare(
    `UPDATE mfa_accounts SET totp_secret_sealed = pending_totp_secret_sealed, totp_enabled_at_ms = @nowMs,
       totp_last_time_step = @timeStep, pending_totp_secret_sealed = NULL, pending_totp_created_at_ms = NULL
     WHERE user_id = @userId AND totp_secret_sealed IS NULL AND pending_totp_secret_sealed = @pendingSecretSealed`,
  );
  const disable = db.prepare(
    `UPDATE mfa_accounts SET totp_secret_sealed = NULL, totp_enabled_at_ms = NULL, totp_last_time_step = NULL,
       pending_totp_secret_sealed = NULL, pending_totp_created_at_ms = NULL
     WHERE user_id = ? AND totp_secret_sealed = ?`,
  );
  const claimStep = db.prepare(
    `UPDATE mfa_accounts SET totp_last_time_step = @timeStep
     WHERE user_id = @userId AND (totp_last_time_step IS NULL OR totp_last_time_step < @timeStep)`,
  );
  const setAttempts = db.prepare(
    "UPDATE mfa_accounts SET failed_attempts = ?, locked_until_ms = ? WHERE user_id = ?",
  );

  const insertEmailCode = db.prepare(
    "INSERT INTO mfa_email_codes (user_id, code_hash, sent_at_ms, expires_at_ms) VALUES (?, ?, ?, ?)",
  );
  const emailSendsSince = db.prepare(
    "SELECT sent_at_ms FROM mfa_email_codes WHERE user_id = ? AND sent_at_ms > ? ORDER BY sent_at_ms",
  );
  // Rows older than the send window matter for nothing once a newer code exists.
  const pruneEmailCodes = db.prepare(
    `DELETE FROM mfa_email_codes WHERE user_id = @userId AND sent_at_ms <= @beforeMs
       AND code_id <> (SELECT MAX(code_id) FROM mfa_email_codes WHERE user_id = @userId)`,
  );
  const deleteEmailCode = db.prepare("DELETE FROM mfa_email_codes WHERE code_id = ?");
  const latestEmailCode = db.prepare(
    "SELECT * FROM mfa_email_codes WHERE user_id = ? ORDER BY code_id DESC LIMIT 1",
  );
  const consumeEmailCode = db.prepare(
    "UPDATE mfa_email_codes SET consumed_at_ms = ? WHERE code_id = ? AND consumed_at_ms IS NULL",
  );

  const countUnusedRecovery = db.prepare(
    "SELECT COUNT(*) FROM mfa_recovery_codes WHERE user_id = ? AND used_at_ms IS NULL",
  );
  const deleteRecovery = db.prepare("DELETE FROM mfa_recovery_codes WHERE user_id = ?");
  const insertRecovery = db.prepare(
    "INSERT INTO mfa_recovery_codes (user_id, code_hash, created_at_ms) VALUES (?, ?, ?)",
  );
  const useRecovery = db.prepare(
    "UPDATE mfa_recovery_codes SET used_at_ms = ? WHERE user_id = ? AND code_hash = ? AND used_at_ms IS NULL",
  );
  const recoveryExists = db.prepare("SELECT 1 FROM mfa_recovery_codes WHERE user_id = ? AND code_hash = ?");

  const pruneTickets = db.prepare(
    "DELETE FROM mfa_tickets WHERE user_id = ? AND (expires_at_ms <= ? OR consumed_at_ms IS NOT NULL)",
  );
  const insertTicket = db.prepare(
    `INSERT INTO mfa_tickets (ticket_hash, user_id, purpose, method, created_at_ms, expires_at_ms)
     VALUES (@ticketHash, @userId, @purpose, @method, @createdAtMs, @expiresAtMs)`,
  );
  const consumeTicket = db.prepare(
    `UPDATE mfa_tickets SET consumed_at_ms = @nowMs
     WHERE ticket_hash = @ticketHash AND user_id = @userId AND purpose = @purpose
       AND consumed_at_ms IS NULL AND expires_at_ms > @nowMs`,
  );
  const ticketByHash = db.prepare("SELECT * FROM mfa_tickets WHERE ticket_hash = ?");

  const account = (userId: number): MfaAccountRow<number> => {
    ensureAccount.run(userId);
    return accountById.get(userId) as MfaAccountRow<number>;
  };

  const nextSendAtMs = (userId: number, nowMs: number, policy: EmailSendPolicy): number => {
    const sends = emailSendsSince.pluck().all(userId, nowMs - policy.windowMs) as number[];
    const last = sends.at(-1);
    let nextMs = nowMs;
    if (last !== undefined) nextMs = Math.max(nextMs, last + policy.intervalMs);
    if (sends.length >= policy.perWindowMax) {
      // The oldest send in the window must drop out of it before another is allowed.
      nextMs = Math.max(nextMs, sends[sends.length - policy.perWindowMax]! + policy.windowMs);
    }
    return nextMs;
  };

  const beginAttempt = db.transaction(
    (userId: number, nowMs: number, policy: AttemptPolicy): AttemptGrant => {
      const row = account(userId);
      let failed = row.failed_attempts;
      if (row.locked_until_ms !== null) {
        if (row.locked_until_ms > nowMs) return { granted: false, retryAtMs: row.locked_until_ms };
        failed = 0;
      }
      if (failed >= policy.attemptsMax) {
        // The budget is taken by checks still in flight, or by checks a crash never settled: lock,
        // so the account cannot stay refused forever.
        const lockedUntilMs = nowMs + policy.lockDurationMs;
        setAttempts.run(failed, lockedUntilMs, userId);
        return { granted: false, retryAtMs: lockedUntilMs };
      }
      setAttempts.run(failed + 1, null, userId);
      return { granted: true };
    },
  );

  const settleFailedAttempt = db.transaction((userId: number, nowMs: number, policy: AttemptPolicy) => {
    const row = account(userId);
    if (row.failed_attempts < policy.attemptsMax) return { lockedUntilMs: row.locked_until_ms };
    const lockedUntilMs = row.locked_until_ms ?? nowMs + policy.lockDurationMs;
    setAttempts.run(row.failed_attempts, lockedUntilMs, userId);
    return { lockedUntilMs };
  });

  const reserveEmailCode = db.transaction(
    (
      input: { userId: number; codeHash: string; nowMs: number; expiresAtMs: number },
      policy: EmailSendPolicy,
    ): EmailCodeReservation => {
      const allowedAtMs = nextSendAtMs(input.userId, input.nowMs, policy);
      if (allowedAtMs > input.nowMs) return { reserved: false, retryAtMs: allowedAtMs };
      const { lastInsertRowid } = insertEmailCode.run(
        input.userId,
        input.codeHash,
        input.nowMs,
        input.expiresAtMs,
      );
      pruneEmailCodes.run({ userId: input.userId, beforeMs: input.nowMs - policy.windowMs });
      return { reserved: true, codeId: Number(lastInsertRowid) };
    },
  );

  const enableTotp = db.transaction((input: EnableTotpInput): boolean => {
    const { changes } = enable.run({
      userId: input.userId,
      pendingSecretSealed: input.pendingSecretSealed,
      timeStep: input.timeStep,
      nowMs: input.nowMs,
    });
    if (changes === 0) return false;
    replaceRecovery(input.userId, input.recoveryCodeHashes, input.nowMs);
    return true;
  });

  const disableTotp = db.transaction((userId: number, secretSealed: string): boolean => {
    if (disable.run(userId, secretSealed).changes === 0) return false;
    deleteRecovery.run(userId);
    return true;
  });

  const replaceRecovery = (userId: number, codeHashes: readonly string[], nowMs: number): void => {
    deleteRecovery.run(userId);
    for (const codeHash of codeHashes) insertRecovery.run(userId, codeHash, nowMs);
  };
  const replaceRecoveryCodes = db.transaction(replaceRecovery);

  const consumeRecoveryCode = db.transaction((userId: number, codeHash: string, nowMs: number) => {
    if (useRecovery.run(nowMs, userId, codeHash).changes === 1) return "consumed";
    return recoveryExists.get(userId, codeHash) === undefined ? "unknown" : "already_used";
  });

  const insertTicketPruning = db.transaction((ticket: Omit<TicketRecord, "consumedAtMs">) => {
    pruneTickets.run(ticket.userId, ticket.createdAtMs);
    insertTicket.run(ticket);
  });

  return {
    async findAccount(userId) {
      const row = accountById.get(userId) as MfaAccountRow<number> | undefined;
      return row === undefined ? undefined : accountFromRow(row);
    },
    async savePendingTotp(userId, secretSealed, nowMs) {
      db.transaction(() => {
        ensureAccount.run(userId);
        setPending.run(secretSealed, nowMs, userId);
      })();
    },
    async enableTotp(input) {
      return enableTotp(input);
    },
    async disableTotp(userId, secretSealed) {
      return disableTotp(userId, secretSealed);
    },
    async claimTotpTimeStep(userId, timeStep) {
      return claimStep.run({ timeStep, userId }).changes === 1;
    },
    async beginAttempt(userId, nowMs, policy) {
      return beginAttempt(userId, nowMs, policy);
    },
    async settleFailedAttempt(userId, nowMs, policy) {
      return settleFailedAttempt(userId, nowMs, policy);
    },
    async resetFailedAttempts(userId) {
      setAttempts.run(0, null, userId);
    },
    async reserveEmailCode(input, policy) {
      return reserveEmailCode(input, policy);
    },
    async cancelEmailCode(codeId) {
      deleteEmailCode.run(codeId);
    },
    async latestEmailCode(userId) {
      const row = latestEmailCode.get(userId) as EmailCodeRow<number> | undefined;
      return row === undefined ? undefined : emailCodeFromRow(row);
    },
    async consumeEmailCode(codeId, nowMs) {
      return consumeEmailCode.run(nowMs, codeId).changes === 1;
    },
    async nextEmailSendAtMs(userId, nowMs, policy) {
      return nextSendAtMs(userId, nowMs, policy);
    },
    async countUnusedRecoveryCodes(userId) {
      return countUnusedRecovery.pluck().get(userId) as number;
    },
    async replaceRecoveryCodes(userId, codeHashes, nowMs) {
      replaceRecoveryCodes(userId, codeHashes, nowMs);
    },
    async consumeRecoveryCode(userId, codeHash, nowMs): Promise<RecoveryCodeUse> {
      return consumeRecoveryCode(userId, codeHash, nowMs);
    },
    async insertTicket(ticket) {
      insertTicketPruning(ticket);
    },
    async consumeTicket(input) {
      return consumeTicket.run(input).changes === 1;
    },
    async findTicket(ticketHash) {
      const row = ticketByHash.get(ticketHash) as TicketRow<number> | undefined;
      return row === undefined ? undefined : ticketFromRow(row);
    },
  };
}
