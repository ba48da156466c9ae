// SQLite adapter of the MFA store (port, statements and decisions: src/store/mfa.ts). Tables are
// prefixed `mfa_`. better-sqlite3 is synchronous, so each method body (or its db.transaction) runs
// without interleaving: that is what makes the check-and-set operations of the interface atomic here.
// SQLite's own: a pending secret set by ensure-then-update, recovery codes inserted one row at a
// time, and a recovery code's use and a ticket's pruning as separate statements in one transaction.

import {
  type AttemptGrant,
  type AttemptStep,
  accountFromRow,
  beginAttemptStep,
  type EmailCodeReservation,
  type EmailCodeRow,
  type EmailSendPolicy,
  type EnableTotpInput,
  emailCodeFromRow,
  type MfaAccountRow,
  type MfaStore,
  mfaMigrations,
  mfaStatements,
  nextEmailSendAt,
  type RecoveryCodeUse,
  settleFailedAttemptStep,
  type TicketRecord,
  type TicketRow,
  ticketFromRow,
} from "../mfa.js";
import { mapped } from "../sql.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareSqliteAll, sqliteText } from "./statements.js";

export function createSqliteMfaStore(db: SqliteDatabase): MfaStore {
  applyMigrations(db, "mfa", mfaMigrations.map(sqliteText));
  const s = prepareSqliteAll(db, mfaStatements);

  const setPending = db.prepare(
    "UPDATE mfa_accounts SET pending_totp_secret_sealed = ?, pending_totp_created_at_ms = ? WHERE user_id = ?",
  );
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

  const account = (userId: number): MfaAccountRow<number> => {
    s.ensureAccount.run({ userId });
    return s.accountById.get<MfaAccountRow<number>>({ userId })!;
  };
  const nextSendAtMs = (userId: number, nowMs: number, policy: EmailSendPolicy): number => {
    const sends = s.emailSendsSince.all<{ sent_at_ms: number }>({ userId, sinceMs: nowMs - policy.windowMs });
    return nextEmailSendAt(
      sends.map((row) => row.sent_at_ms),
      nowMs,
      policy,
    );
  };
  /** Runs a decision over the account row and writes what it says, in one transaction. */
  const attemptStep = db.transaction(
    (userId: number, decide: (row: MfaAccountRow<number>) => AttemptStep<unknown>): unknown => {
      const step = decide(account(userId));
      if (step.write !== undefined) s.setAttempts.run({ userId, ...step.write });
      return step.answer;
    },
  );

  const reserveEmailCode = db.transaction(
    (
      input: { userId: number; codeHash: string; nowMs: number; expiresAtMs: number },
      policy: EmailSendPolicy,
    ): EmailCodeReservation => {
      const allowedAtMs = nextSendAtMs(input.userId, input.nowMs, policy);
      if (allowedAtMs > input.nowMs) return { reserved: false, retryAtMs: allowedAtMs };
      const inserted = s.insertEmailCode.get<{ code_id: number }>(input)!;
      s.pruneEmailCodes.run({ userId: input.userId, beforeMs: input.nowMs - policy.windowMs });
      return { reserved: true, codeId: inserted.code_id };
    },
  );
  const replaceRecovery = (userId: number, codeHashes: readonly string[], nowMs: number): void => {
    s.deleteRecovery.run({ userId });
    for (const codeHash of codeHashes) insertRecovery.run(userId, codeHash, nowMs);
  };
  const enableTotp = db.transaction((input: EnableTotpInput): boolean => {
    if (s.enable.run(input).changes === 0) return false;
    replaceRecovery(input.userId, input.recoveryCodeHashes, input.nowMs);
    return true;
  });
  const disableTotp = db.transaction((userId: number, secretSealed: string): boolean => {
    if (s.disable.run({ userId, secretSealed }).changes === 0) return false;
    s.deleteRecovery.run({ userId });
    return true;
  });
  const replaceRecoveryCodes = db.transaction(replaceRecovery);
  const consumeRecoveryCode = db.transaction((userId: number, codeHash: string, nowMs: number) => {
    if (useRecovery.run(nowMs, userId, codeHash).changes === 1) return "consumed";
    return recoveryExists.get(userId, codeHash) === undefined ? "unknown" : "already_used";
  });
  const insertTicketPruning = db.transaction((ticket: Omit<TicketRecord, "consumedAtMs">) => {
    pruneTickets.run(ticket.userId, ticket.createdAtMs);
    insertTicket.run(ticket);
  });
  const savePending = db.transaction((userId: number, secretSealed: string, nowMs: number) => {
    s.ensureAccount.run({ userId });
    setPending.run(secretSealed, nowMs, userId);
  });

  return {
    findAccount: async (userId) =>
      mapped(s.accountById.get<MfaAccountRow<number>>({ userId }), accountFromRow),
    savePendingTotp: async (userId, secretSealed, nowMs) => savePending(userId, secretSealed, nowMs),
    enableTotp: async (input) => enableTotp(input),
    disableTotp: async (userId, secretSealed) => disableTotp(userId, secretSealed),
    claimTotpTimeStep: async (userId, timeStep) => s.claimStep.run({ timeStep, userId }).changes === 1,
    beginAttempt: async (userId, nowMs, policy) =>
      attemptStep(userId, (row) => beginAttemptStep(row, nowMs, policy)) as AttemptGrant,
    settleFailedAttempt: async (userId, nowMs, policy) =>
      attemptStep(userId, (row) => settleFailedAttemptStep(row, nowMs, policy)) as {
        lockedUntilMs: number | null;
      },
    async resetFailedAttempts(userId) {
      s.setAttempts.run({ userId, failed: 0, lockedUntilMs: null });
    },
    reserveEmailCode: async (input, policy) => reserveEmailCode(input, policy),
    async cancelEmailCode(codeId) {
      s.deleteEmailCode.run({ codeId });
    },
    latestEmailCode: async (userId) =>
      mapped(s.latestEmailCode.get<EmailCodeRow<number>>({ userId }), emailCodeFromRow),
    consumeEmailCode: async (codeId, nowMs) => s.consumeEmailCode.run({ nowMs, codeId }).changes === 1,
    nextEmailSendAtMs: async (userId, nowMs, policy) => nextSendAtMs(userId, nowMs, policy),
    countUnusedRecoveryCodes: async (userId) =>
      s.countUnusedRecovery.get<{ count: number }>({ userId })!.count,
    async replaceRecoveryCodes(userId, codeHashes, nowMs) {
      replaceRecoveryCodes(userId, codeHashes, nowMs);
    },
    consumeRecoveryCode: async (userId, codeHash, nowMs): Promise<RecoveryCodeUse> =>
      consumeRecoveryCode(userId, codeHash, nowMs),
    async insertTicket(ticket) {
      insertTicketPruning(ticket);
    },
    consumeTicket: async (input) => s.consumeTicket.run(input).changes === 1,
    findTicket: async (ticketHash) =>
      mapped(s.ticketByHash.get<TicketRow<number>>({ ticketHash }), ticketFromRow),
  };
}
