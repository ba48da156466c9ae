// PostgreSQL adapter of the MFA store (port, statements, decisions and the methods that are one
// statement each: src/store/mfa.ts; SQLite twin: src/store/sqlite/mfa.ts). Every check-and-set of
// the port is atomic across API nodes: a single conditional statement where one suffices (a TOTP
// step, a code, a ticket, the pending secret), else a transaction that first locks the user's
// mfa_accounts row (`FOR UPDATE`), so two nodes deciding for one user take turns. PostgreSQL's own:
// the row lock, recovery codes inserted from one array, a recovery code's use and a ticket's pruning
// as one statement each.

import {
  type AttemptStep,
  beginAttemptStep,
  type MfaAccountRow,
  type MfaStore,
  mfaMigrations,
  mfaSingleStatementsOn,
  mfaStatements,
  nextEmailSendAt,
  type RecoveryCodeUse,
  settleFailedAttemptStep,
} from "../mfa.js";
import { inTransaction, type PostgresClient, type PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements, postgresText, preparePostgresAll } from "./statements.js";

const shared = preparePostgresAll("predex-mfa", mfaStatements);

/** PostgreSQL's own statements. */
const statements = {
  lockAccount: {
    name: "predex-mfa-lock-account",
    text: "SELECT * FROM mfa_accounts WHERE user_id = $1 FOR UPDATE",
  },
  insertRecovery: {
    name: "predex-mfa-insert-recovery",
    text: `INSERT INTO mfa_recovery_codes (user_id, code_hash, created_at_ms)
           SELECT $1, code_hash, $3 FROM unnest($2::text[]) AS codes(code_hash)`,
  }, // One statement answers all three cases: the UPDATE's row when it was unused, else whether it exists.
  useRecovery: {
    name: "predex-mfa-use-recovery",
    text: `WITH used AS (
             UPDATE mfa_recovery_codes SET used_at_ms = $3
             WHERE user_id = $1 AND code_hash = $2 AND used_at_ms IS NULL RETURNING 1
           )
           SELECT EXISTS (SELECT 1 FROM used) AS consumed,
                  EXISTS (SELECT 1 FROM mfa_recovery_codes WHERE user_id = $1 AND code_hash = $2) AS known`,
  },
  insertTicket: {
    name: "predex-mfa-insert-ticket",
    text: `WITH pruned AS (
             DELETE FROM mfa_tickets WHERE user_id = $2 AND (expires_at_ms <= $5 OR consumed_at_ms IS NOT NULL)
           )
           INSERT INTO mfa_tickets (ticket_hash, user_id, purpose, method, created_at_ms, expires_at_ms)
           VALUES ($1, $2, $3, $4, $5, $6)`,
  },
} as const;

export async function openPostgresMfaStore(pool: PostgresPool): Promise<MfaStore> {
  await applyPostgresMigrations(pool, "mfa", mfaMigrations.map(postgresText));
  return {
    ...mfaSingleStatementsOn(postgresStatements(pool, "predex-mfa", mfaStatements)),
    ...totpMethods(pool),
    ...attemptMethods(pool),
    ...recoveryAndTicketMethods(pool),
    reserveEmailCode: (input, policy) =>
      inTransaction(pool, async (client) => {
        // The account row's lock makes concurrent sends of one user take turns on the policy.
        await lockedAccount(client, input.userId);
        const sinceMs = input.nowMs - policy.windowMs;
        const sends = await shared.emailSendsSince.query<{ sent_at_ms: bigint }>(client, {
          userId: input.userId,
          sinceMs,
        });
        const sendsAtMs = sends.rows.map((row) => Number(row.sent_at_ms));
        const allowedAtMs = nextEmailSendAt(sendsAtMs, input.nowMs, policy);
        if (allowedAtMs > input.nowMs) return { reserved: false, retryAtMs: allowedAtMs } as const;
        const inserted = await shared.insertEmailCode.row<{ code_id: bigint }>(client, input);
        await shared.pruneEmailCodes.query(client, { userId: input.userId, beforeMs: sinceMs });
        return { reserved: true, codeId: Number(inserted!.code_id) } as const;
      }),
  };
}

/** The user's account row, created if needed and locked until the transaction ends. */
async function lockedAccount(client: PostgresClient, userId: number): Promise<MfaAccountRow> {
  await shared.ensureAccount.query(client, { userId });
  const result = await client.query<MfaAccountRow>({ ...statements.lockAccount, values: [userId] });
  return result.rows[0]!;
}

const changedOne = async (done: Promise<{ rowCount: number | null }>) => (await done).rowCount === 1;

async function replaceRecovery(
  client: PostgresClient,
  userId: number,
  codeHashes: readonly string[],
  nowMs: number,
): Promise<void> {
  await shared.deleteRecovery.query(client, { userId });
  await client.query({ ...statements.insertRecovery, values: [userId, codeHashes, nowMs] });
}

function totpMethods(pool: PostgresPool): Pick<MfaStore, "enableTotp" | "disableTotp"> {
  return {
    enableTotp: (input) =>
      inTransaction(pool, async (client) => {
        if (!(await changedOne(shared.enable.query(client, input)))) return false;
        await replaceRecovery(client, input.userId, input.recoveryCodeHashes, input.nowMs);
        return true;
      }),
    disableTotp: (userId, secretSealed) =>
      inTransaction(pool, async (client) => {
        if (!(await changedOne(shared.disable.query(client, { userId, secretSealed })))) return false;
        await shared.deleteRecovery.query(client, { userId });
        return true;
      }),
  };
}

function attemptMethods(pool: PostgresPool): Pick<MfaStore, "beginAttempt" | "settleFailedAttempt"> {
  /** Runs a decision over the locked account row and writes what it says, in one transaction. */
  const attemptStep = <Answer>(userId: number, decide: (row: MfaAccountRow) => AttemptStep<Answer>) =>
    inTransaction(pool, async (client): Promise<Answer> => {
      const step = decide(await lockedAccount(client, userId));
      if (step.write !== undefined) await shared.setAttempts.query(client, { userId, ...step.write });
      return step.answer;
    });
  return {
    beginAttempt: (userId, nowMs, policy) =>
      attemptStep(userId, (row) => beginAttemptStep(row, nowMs, policy)),
    settleFailedAttempt: (userId, nowMs, policy) =>
      attemptStep(userId, (row) => settleFailedAttemptStep(row, nowMs, policy)),
  };
}

function recoveryAndTicketMethods(
  pool: PostgresPool,
): Pick<MfaStore, "replaceRecoveryCodes" | "consumeRecoveryCode" | "insertTicket"> {
  return {
    async replaceRecoveryCodes(userId, codeHashes, nowMs) {
      await inTransaction(pool, (client) => replaceRecovery(client, userId, codeHashes, nowMs));
    },
    async consumeRecoveryCode(userId, codeHash, nowMs): Promise<RecoveryCodeUse> {
      const result = await pool.query<{ consumed: boolean; known: boolean }>({
        ...statements.useRecovery,
        values: [userId, codeHash, nowMs],
      });
      const { consumed, known } = result.rows[0]!;
      if (consumed) return "consumed";
      return known ? "already_used" : "unknown";
    },
    async insertTicket(ticket) {
      const { ticketHash, userId, purpose, method, createdAtMs, expiresAtMs } = ticket;
      await pool.query({
        ...statements.insertTicket,
        values: [ticketHash, userId, purpose, method, createdAtMs, expiresAtMs],
      });
    },
  };
}
