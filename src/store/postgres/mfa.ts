// PostgreSQL adapter of the MFA store (port: src/store/mfa.ts; SQLite twin: src/store/sqlite/mfa.ts).
// Every check-and-set of the port is atomic across API nodes: a single conditional statement where
// one suffices (a TOTP step, a code, a ticket), else a transaction that first locks the user's
// mfa_accounts row (`FOR UPDATE`), so two nodes deciding for one user take turns.

import {
  type AttemptGrant,
  accountFromRow,
  type EmailCodeRow,
  type EmailSendPolicy,
  emailCodeFromRow,
  type MfaAccountRow,
  type MfaStore,
  mfaMigrations,
  type RecoveryCodeUse,
  type TicketRow,
  ticketFromRow,
} from "../mfa.js";
import { inTransaction, type PostgresClient, type PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresText } from "./statements.js";

const statements = {
  accountById: { name: "predex-mfa-account", text: "SELECT * FROM mfa_accounts WHERE user_id = $1" },
  ensureAccount: {
    name: "predex-mfa-ensure-account",
    text: "INSERT INTO mfa_accounts (user_id) VALUES ($1) ON CONFLICT DO NOTHING",
  },
  lockAccount: {
    name: "predex-mfa-lock-account",
    text: "SELECT * FROM mfa_accounts WHERE user_id = $1 FOR UPDATE",
  },
  savePending: {
    name: "predex-mfa-save-pending",
    text: `INSERT INTO mfa_accounts AS accounts (user_id, pending_totp_secret_sealed, pending_totp_created_at_ms)
           VALUES ($1, $2, $3)
           ON CONFLICT (user_id) DO UPDATE SET pending_totp_secret_sealed = $2, pending_totp_created_at_ms = $3`,
  },
  enable: {
    name: "predex-mfa-enable",
    text: `UPDATE mfa_accounts SET totp_secret_sealed = pending_totp_secret_sealed, totp_enabled_at_ms = $4,
             totp_last_time_step = $3, pending_totp_secret_sealed = NULL, pending_totp_created_at_ms = NULL
           WHERE user_id = $1 AND totp_secret_sealed IS NULL AND pending_totp_secret_sealed = $2`,
  },
  disable: {
    name: "predex-mfa-disable",
    text: `UPDATE mfa_accounts SET totp_secret_sealed = NULL, totp_enabled_at_ms = NULL, totp_last_time_step = NULL,
             pending_totp_secret_sealed = NULL, pending_totp_created_at_ms = NULL
           WHERE user_id = $1 AND totp_secret_sealed = $2`,
  },
  claimStep: {
    name: "predex-mfa-claim-step",
    text: `UPDATE mfa_accounts SET totp_last_time_step = $2
           WHERE user_id = $1 AND (totp_last_time_step IS NULL OR totp_last_time_step < $2)`,
  },
  setAttempts: {
    name: "predex-mfa-set-attempts",
    text: "UPDATE mfa_accounts SET failed_attempts = $2, locked_until_ms = $3 WHERE user_id = $1",
  },
  insertEmailCode: {
    name: "predex-mfa-insert-email-code",
    text: `INSERT INTO mfa_email_codes (user_id, code_hash, sent_at_ms, expires_at_ms)
           VALUES ($1, $2, $3, $4) RETURNING code_id`,
  },
  emailSendsSince: {
    name: "predex-mfa-email-sends-since",
    text: "SELECT sent_at_ms FROM mfa_email_codes WHERE user_id = $1 AND sent_at_ms > $2 ORDER BY sent_at_ms",
  },
  // Rows older than the send window matter for nothing once a newer code exists.
  pruneEmailCodes: {
    name: "predex-mfa-prune-email-codes",
    text: `DELETE FROM mfa_email_codes WHERE user_id = $1 AND sent_at_ms <= $2
             AND code_id <> (SELECT max(code_id) FROM mfa_email_codes WHERE user_id = $1)`,
  },
  deleteEmailCode: {
    name: "predex-mfa-delete-email-code",
    text: "DELETE FROM mfa_email_codes WHERE code_id = $1",
  },
  latestEmailCode: {
    name: "predex-mfa-latest-email-code",
    text: "SELECT * FROM mfa_email_codes WHERE user_id = $1 ORDER BY code_id DESC LIMIT 1",
  },
  consumeEmailCode: {
    name: "predex-mfa-consume-email-code",
    text: "UPDATE mfa_email_codes SET consumed_at_ms = $2 WHERE code_id = $1 AND consumed_at_ms IS NULL",
  },
  countUnusedRecovery: {
    name: "predex-mfa-count-unused-recovery",
    text: "SELECT count(*)::integer AS count FROM mfa_recovery_codes WHERE user_id = $1 AND used_at_ms IS NULL",
  },
  deleteRecovery: {
    name: "predex-mfa-delete-recovery",
    text: "DELETE FROM mfa_recovery_codes WHERE user_id = $1",
  },
  insertRecovery: {
    name: "predex-mfa-insert-recovery",
    text: `INSERT INTO mfa_recovery_codes (user_id, code_hash, created_at_ms)
           SELECT $1, code_hash, $3 FROM unnest($2::text[]) AS codes(code_hash)`,
  },
  // One statement answers all three cases: the UPDATE's row when it was unused, else whether it exists.
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
  consumeTicket: {
    name: "predex-mfa-consume-ticket",
    text: `UPDATE mfa_tickets SET consumed_at_ms = $4
           WHERE ticket_hash = $1 AND user_id = $2 AND purpose = $3
             AND consumed_at_ms IS NULL AND expires_at_ms > $4`,
  },
  ticketByHash: { name: "predex-mfa-ticket", text: "SELECT * FROM mfa_tickets WHERE ticket_hash = $1" },
} as const;

export async function openPostgresMfaStore(pool: PostgresPool): Promise<MfaStore> {
  await applyPostgresMigrations(pool, "mfa", mfaMigrations.map(postgresText));

  /** The user's account row, created if needed and locked until the transaction ends. */
  const lockedAccount = async (client: PostgresClient, userId: number): Promise<MfaAccountRow> => {
    await client.query({ ...statements.ensureAccount, values: [userId] });
    const result = await client.query<MfaAccountRow>({ ...statements.lockAccount, values: [userId] });
    return result.rows[0]!;
  };

  const nextSendAtMs = async (
    client: PostgresPool | PostgresClient,
    userId: number,
    nowMs: number,
    policy: EmailSendPolicy,
  ): Promise<number> => {
    const result = await client.query<{ sent_at_ms: bigint }>({
      ...statements.emailSendsSince,
      values: [userId, nowMs - policy.windowMs],
    });
    const sends = result.rows.map((row) => Number(row.sent_at_ms));
    const last = sends.at(-1);
    let nextMs = nowMs;
    if (last !== undefined) nextMs = Math.max(nextMs, last + policy.intervalMs);
    if (sends.length >= policy.perWindowMax) {
      // The oldest send in the window must drop out of it before another is allowed.
      nextMs = Math.max(nextMs, sends[sends.length - policy.perWindowMax]! + policy.windowMs);
    }
    return nextMs;
  };

  const replaceRecovery = async (
    client: PostgresClient,
    userId: number,
    codeHashes: readonly string[],
    nowMs: number,
  ): Promise<void> => {
    await client.query({ ...statements.deleteRecovery, values: [userId] });
    await client.query({ ...statements.insertRecovery, values: [userId, codeHashes, nowMs] });
  };

  return {
    async findAccount(userId) {
      const result = await pool.query<MfaAccountRow>({ ...statements.accountById, values: [userId] });
      const row = result.rows[0];
      return row === undefined ? undefined : accountFromRow(row);
    },
    async savePendingTotp(userId, secretSealed, nowMs) {
      await pool.query({ ...statements.savePending, values: [userId, secretSealed, nowMs] });
    },
    async enableTotp(input) {
      return inTransaction(pool, async (client) => {
        const enabled = await client.query({
          ...statements.enable,
          values: [input.userId, input.pendingSecretSealed, input.timeStep, input.nowMs],
        });
        if (enabled.rowCount !== 1) return false;
        await replaceRecovery(client, input.userId, input.recoveryCodeHashes, input.nowMs);
        return true;
      });
    },
    async disableTotp(userId, secretSealed) {
      return inTransaction(pool, async (client) => {
        const disabled = await client.query({ ...statements.disable, values: [userId, secretSealed] });
        if (disabled.rowCount !== 1) return false;
        await client.query({ ...statements.deleteRecovery, values: [userId] });
        return true;
      });
    },
    async claimTotpTimeStep(userId, timeStep) {
      const result = await pool.query({ ...statements.claimStep, values: [userId, timeStep] });
      return result.rowCount === 1;
    },
    async beginAttempt(userId, nowMs, policy) {
      return inTransaction(pool, async (client): Promise<AttemptGrant> => {
        const row = await lockedAccount(client, userId);
        let failed = row.failed_attempts;
        if (row.locked_until_ms !== null) {
          const lockedUntilMs = Number(row.locked_until_ms);
          if (lockedUntilMs > nowMs) return { granted: false, retryAtMs: lockedUntilMs };
          failed = 0;
        }
        if (failed >= policy.attemptsMax) {
          // The budget is taken by checks still in flight, or by checks a crash never settled:
          // lock, so the account cannot stay refused forever.
          const lockedUntilMs = nowMs + policy.lockDurationMs;
          await client.query({ ...statements.setAttempts, values: [userId, failed, lockedUntilMs] });
          return { granted: false, retryAtMs: lockedUntilMs };
        }
        await client.query({ ...statements.setAttempts, values: [userId, failed + 1, null] });
        return { granted: true };
      });
    },
    async settleFailedAttempt(userId, nowMs, policy) {
      return inTransaction(pool, async (client) => {
        const row = await lockedAccount(client, userId);
        const lockedUntil = row.locked_until_ms === null ? null : Number(row.locked_until_ms);
        if (row.failed_attempts < policy.attemptsMax) return { lockedUntilMs: lockedUntil };
        const lockedUntilMs = lockedUntil ?? nowMs + policy.lockDurationMs;
        await client.query({
          ...statements.setAttempts,
          values: [userId, row.failed_attempts, lockedUntilMs],
        });
        return { lockedUntilMs };
      });
    },
    async resetFailedAttempts(userId) {
      await pool.query({ ...statements.setAttempts, values: [userId, 0, null] });
    },
    async reserveEmailCode(input, policy) {
      return inTransaction(pool, async (client) => {
        // The account row's lock makes concurrent sends of one user take turns on the policy.
        await lockedAccount(client, input.userId);
        const allowedAtMs = await nextSendAtMs(client, input.userId, input.nowMs, policy);
        if (allowedAtMs > input.nowMs) return { reserved: false, retryAtMs: allowedAtMs } as const;
        const inserted = await client.query<{ code_id: bigint }>({
          ...statements.insertEmailCode,
          values: [input.userId, input.codeHash, input.nowMs, input.expiresAtMs],
        });
        await client.query({
          ...statements.pruneEmailCodes,
          values: [input.userId, input.nowMs - policy.windowMs],
        });
        return { reserved: true, codeId: Number(inserted.rows[0]!.code_id) } as const;
      });
    },
    async cancelEmailCode(codeId) {
      await pool.query({ ...statements.deleteEmailCode, values: [codeId] });
    },
    async latestEmailCode(userId) {
      const result = await pool.query<EmailCodeRow>({ ...statements.latestEmailCode, values: [userId] });
      const row = result.rows[0];
      return row === undefined ? undefined : emailCodeFromRow(row);
    },
    async consumeEmailCode(codeId, nowMs) {
      const result = await pool.query({ ...statements.consumeEmailCode, values: [codeId, nowMs] });
      return result.rowCount === 1;
    },
    async nextEmailSendAtMs(userId, nowMs, policy) {
      return nextSendAtMs(pool, userId, nowMs, policy);
    },
    async countUnusedRecoveryCodes(userId) {
      const result = await pool.query<{ count: number }>({
        ...statements.countUnusedRecovery,
        values: [userId],
      });
      return result.rows[0]!.count;
    },
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
      await pool.query({
        ...statements.insertTicket,
        values: [
          ticket.ticketHash,
          ticket.userId,
          ticket.purpose,
          ticket.method,
          ticket.createdAtMs,
          ticket.expiresAtMs,
        ],
      });
    },
    async consumeTicket(input) {
      const result = await pool.query({
        ...statements.consumeTicket,
        values: [input.ticketHash, input.userId, input.purpose, input.nowMs],
      });
      return result.rowCount === 1;
    },
    async findTicket(ticketHash) {
      const result = await pool.query<TicketRow>({ ...statements.ticketByHash, values: [ticketHash] });
      const row = result.rows[0];
      return row === undefined ? undefined : ticketFromRow(row);
    },
  };
}
