// SQLite adapter of the MFA store (port, statements, decisions and the methods that are one statement
// each: src/store/mfa.ts). Tables are prefixed `mfa_`. better-sqlite3 is synchronous, so each
// db.transaction runs without interleaving: that is what makes the check-and-set operations of the
// interface atomic here. SQLite's own: recovery codes inserted one row at a time, and a recovery
// code's use and a ticket's pruning as separate statements in one transaction.

import {
  type AttemptGrant,
  type AttemptStep,
  beginAttemptStep,
  type EmailCodeReservation,
  type EmailSendPolicy,
  type EnableTotpInput,
  type MfaAccountRow,
  type MfaStore,
  mfaMigrations,
  mfaSingleStatementsOn,
  mfaStatements,
  nextEmailSendAt,
  type RecoveryCodeUse,
  settleFailedAttemptStep,
  type TicketRecord,
} from "../mfa.js";
import { sql } from "../sql.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareSqliteAll, sqliteStatements, sqliteText } from "./statements.js";

/** SQLite's own statements. */
const ownStatements = {
  insertRecovery: sql<{ userId: number; codeHash: string; nowMs: number }>`INSERT INTO mfa_recovery_codes
     (user_id, code_hash, created_at_ms) VALUES (${"userId"}, ${"codeHash"}, ${"nowMs"})`,
  useRecovery: sql<{ userId: number; codeHash: string; nowMs: number }>`UPDATE mfa_recovery_codes
     SET used_at_ms = ${"nowMs"} WHERE user_id = ${"userId"} AND code_hash = ${"codeHash"} AND used_at_ms IS NULL`,
  recoveryExists: sql<{ userId: number; codeHash: string }>`SELECT 1 FROM mfa_recovery_codes
     WHERE user_id = ${"userId"} AND code_hash = ${"codeHash"}`,
  pruneTickets: sql<{ userId: number; nowMs: number }>`DELETE FROM mfa_tickets
     WHERE user_id = ${"userId"} AND (expires_at_ms <= ${"nowMs"} OR consumed_at_ms IS NOT NULL)`,
  insertTicket: sql<Omit<TicketRecord, "consumedAtMs">>`INSERT INTO mfa_tickets
     (ticket_hash, user_id, purpose, method, created_at_ms, expires_at_ms)
     VALUES (${"ticketHash"}, ${"userId"}, ${"purpose"}, ${"method"}, ${"createdAtMs"}, ${"expiresAtMs"})`,
};

type Shared = ReturnType<typeof prepareSqliteAll<typeof mfaStatements>>;
type Own = ReturnType<typeof prepareSqliteAll<typeof ownStatements>>;

export function createSqliteMfaStore(db: SqliteDatabase): MfaStore {
  applyMigrations(db, "mfa", mfaMigrations.map(sqliteText));
  const shared = prepareSqliteAll(db, mfaStatements);
  const own = prepareSqliteAll(db, ownStatements);
  return {
    ...mfaSingleStatementsOn(sqliteStatements(db, mfaStatements)),
    ...totpMethods(db, shared, own),
    ...attemptMethods(db, shared),
    ...recoveryAndTicketMethods(db, shared, own),
    reserveEmailCode: reserveEmailCodeOn(db, shared),
  };
}

function totpMethods(
  db: SqliteDatabase,
  shared: Shared,
  own: Own,
): Pick<MfaStore, "enableTotp" | "disableTotp"> {
  const enableTotp = db.transaction((input: EnableTotpInput): boolean => {
    if (shared.enable.run(input).changes === 0) return false;
    replaceRecovery(shared, own, input.userId, input.recoveryCodeHashes, input.nowMs);
    return true;
  });
  const disableTotp = db.transaction((userId: number, secretSealed: string): boolean => {
    if (shared.disable.run({ userId, secretSealed }).changes === 0) return false;
    shared.deleteRecovery.run({ userId });
    return true;
  });
  return {
    enableTotp: async (input) => enableTotp(input),
    disableTotp: async (userId, secretSealed) => disableTotp(userId, secretSealed),
  };
}

function attemptMethods(
  db: SqliteDatabase,
  shared: Shared,
): Pick<MfaStore, "beginAttempt" | "settleFailedAttempt"> {
  /** Runs a decision over the account row and writes what it says, in one transaction. */
  const attemptStep = db.transaction(
    (userId: number, decide: (row: MfaAccountRow<number>) => AttemptStep<unknown>): unknown => {
      shared.ensureAccount.run({ userId });
      const step = decide(shared.accountById.get<MfaAccountRow<number>>({ userId })!);
      if (step.write !== undefined) shared.setAttempts.run({ userId, ...step.write });
      return step.answer;
    },
  );
  return {
    beginAttempt: async (userId, nowMs, policy) =>
      attemptStep(userId, (row) => beginAttemptStep(row, nowMs, policy)) as AttemptGrant,
    settleFailedAttempt: async (userId, nowMs, policy) =>
      attemptStep(userId, (row) => settleFailedAttemptStep(row, nowMs, policy)) as {
        lockedUntilMs: number | null;
      },
  };
}

function reserveEmailCodeOn(db: SqliteDatabase, shared: Shared): MfaStore["reserveEmailCode"] {
  const reserve = db.transaction(
    (
      input: { userId: number; codeHash: string; nowMs: number; expiresAtMs: number },
      policy: EmailSendPolicy,
    ): EmailCodeReservation => {
      const sinceMs = input.nowMs - policy.windowMs;
      const sends = shared.emailSendsSince.all<{ sent_at_ms: number }>({ userId: input.userId, sinceMs });
      const allowedAtMs = nextEmailSendAt(
        sends.map((row) => row.sent_at_ms),
        input.nowMs,
        policy,
      );
      if (allowedAtMs > input.nowMs) return { reserved: false, retryAtMs: allowedAtMs };
      const inserted = shared.insertEmailCode.get<{ code_id: number }>(input)!;
      shared.pruneEmailCodes.run({ userId: input.userId, beforeMs: sinceMs });
      return { reserved: true, codeId: inserted.code_id };
    },
  );
  return async (input, policy) => reserve(input, policy);
}

function replaceRecovery(
  shared: Shared,
  own: Own,
  userId: number,
  codeHashes: readonly string[],
  nowMs: number,
): void {
  shared.deleteRecovery.run({ userId });
  for (const codeHash of codeHashes) own.insertRecovery.run({ userId, codeHash, nowMs });
}

function recoveryAndTicketMethods(
  db: SqliteDatabase,
  shared: Shared,
  own: Own,
): Pick<MfaStore, "replaceRecoveryCodes" | "consumeRecoveryCode" | "insertTicket"> {
  const replaceRecoveryCodes = db.transaction(
    (userId: number, codeHashes: readonly string[], nowMs: number) =>
      replaceRecovery(shared, own, userId, codeHashes, nowMs),
  );
  const consumeRecoveryCode = db.transaction((userId: number, codeHash: string, nowMs: number) => {
    if (own.useRecovery.run({ userId, codeHash, nowMs }).changes === 1) return "consumed";
    return own.recoveryExists.get({ userId, codeHash }) === undefined ? "unknown" : "already_used";
  });
  const insertTicketPruning = db.transaction((ticket: Omit<TicketRecord, "consumedAtMs">) => {
    own.pruneTickets.run({ userId: ticket.userId, nowMs: ticket.createdAtMs });
    own.insertTicket.run(ticket);
  });
  return {
    async replaceRecoveryCodes(userId, codeHashes, nowMs) {
      replaceRecoveryCodes(userId, codeHashes, nowMs);
    },
    consumeRecoveryCode: async (userId, codeHash, nowMs): Promise<RecoveryCodeUse> =>
      consumeRecoveryCode(userId, codeHash, nowMs),
    async insertTicket(ticket) {
      insertTicketPruning(ticket);
    },
  };
}
