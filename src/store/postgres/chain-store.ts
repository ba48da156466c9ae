// PostgreSQL adapter of the chain wallet's port (port: src/store/chain-store.ts; SQLite twin:
// src/store/sqlite/chain-store.ts): the watcher's block cursor, every deposit transfer it has seen,
// and every on-chain withdrawal with its signed transaction. Token units can pass 2^63 (18-decimal
// tokens), so they are numeric(78,0) — any uint256 — read back as strings and turned into bigint.
//
// The chain service runs on one node at a time, but the operator's desk (any API node) holds and
// releases withdrawals against it: every decision that must not be made twice is one statement
// (INSERT … ON CONFLICT DO NOTHING for "signed once", a conditional UPDATE for "hold"), never a read
// followed by a write in JS.

import {
  type ChainDeposit,
  type ChainDepositStatus,
  type ChainStore,
  type ChainWithdrawal,
  type ChainWithdrawalStatus,
  pendingDepositsMax,
  type WithdrawalTransaction,
  type WithdrawalTransactionState,
} from "../chain-store.js";
import { inTransaction, type PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";

export const chainMigrations: readonly string[] = [
  `CREATE TABLE chain_cursors (
     name text PRIMARY KEY,
     block_number bigint NOT NULL,
     updated_at_ms bigint NOT NULL
   );
   CREATE TABLE chain_deposits (
     tx_hash text NOT NULL,
     log_index integer NOT NULL,
     user_id bigint NOT NULL,
     address text NOT NULL,
     units numeric(78, 0) NOT NULL,
     amount_atoms bigint NOT NULL,
     dust_units numeric(78, 0) NOT NULL,
     block_number bigint NOT NULL,
     block_hash text NOT NULL,
     status text NOT NULL,
     seen_at_ms bigint NOT NULL,
     updated_at_ms bigint NOT NULL,
     PRIMARY KEY (tx_hash, log_index)
   );
   CREATE INDEX chain_deposits_by_status ON chain_deposits (status, block_number, log_index);
   CREATE INDEX chain_deposits_by_user ON chain_deposits (user_id, status, seen_at_ms);
   CREATE INDEX chain_deposits_by_seen ON chain_deposits (seen_at_ms DESC, tx_hash, log_index);
   CREATE TABLE chain_withdrawals (
     withdrawal_id bigint PRIMARY KEY,
     status text NOT NULL,
     nonce bigint,
     from_address text,
     to_address text NOT NULL,
     units numeric(78, 0) NOT NULL,
     raw_tx text,
     tx_hash text,
     block_number bigint,
     broadcasts integer NOT NULL DEFAULT 0,
     last_error text,
     created_at_ms bigint NOT NULL,
     updated_at_ms bigint NOT NULL
   );
   CREATE INDEX chain_withdrawals_by_status ON chain_withdrawals (status, withdrawal_id);
   CREATE INDEX chain_withdrawals_by_from ON chain_withdrawals (from_address, nonce);`,
  // Every transaction signed for a withdrawal: the first and each fee replacement at its nonce.
  // Withdrawals in flight when this came in get their one transaction; finished ones keep only the
  // hash on their own row.
  `CREATE TABLE chain_withdrawal_transactions (
     tx_hash text PRIMARY KEY,
     withdrawal_id bigint NOT NULL,
     nonce bigint NOT NULL,
     raw_tx text NOT NULL,
     state text NOT NULL,
     signed_at_ms bigint NOT NULL
   );
   CREATE INDEX chain_withdrawal_transactions_by_withdrawal
     ON chain_withdrawal_transactions (withdrawal_id, nonce, signed_at_ms);
   INSERT INTO chain_withdrawal_transactions (tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms)
     SELECT tx_hash, withdrawal_id, nonce, raw_tx, 'PENDING', created_at_ms FROM chain_withdrawals
     WHERE status IN ('SIGNED', 'SENT') AND tx_hash IS NOT NULL AND raw_tx IS NOT NULL AND nonce IS NOT NULL;`,
];

interface DepositRow {
  tx_hash: string;
  log_index: number;
  user_id: bigint;
  address: string;
  units: string;
  amount_atoms: bigint;
  dust_units: string;
  block_number: bigint;
  block_hash: string;
  status: ChainDepositStatus;
  seen_at_ms: bigint;
  updated_at_ms: bigint;
}

interface WithdrawalRow {
  withdrawal_id: bigint;
  status: ChainWithdrawalStatus;
  nonce: bigint | null;
  from_address: string | null;
  to_address: string;
  units: string;
  raw_tx: string | null;
  tx_hash: string | null;
  block_number: bigint | null;
  broadcasts: number;
  last_error: string | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

interface TransactionRow {
  tx_hash: string;
  withdrawal_id: bigint;
  nonce: bigint;
  raw_tx: string;
  state: WithdrawalTransactionState;
  signed_at_ms: bigint;
}

const depositColumns =
  "tx_hash, log_index, user_id, address, units::text AS units, amount_atoms, dust_units::text AS dust_units, block_number, block_hash, status, seen_at_ms, updated_at_ms";
const withdrawalColumns =
  "withdrawal_id, status, nonce, from_address, to_address, units::text AS units, raw_tx, tx_hash, block_number, broadcasts, last_error, created_at_ms, updated_at_ms";

const insertWithdrawalSql = `INSERT INTO chain_withdrawals (withdrawal_id, status, nonce, from_address, to_address,
    units, raw_tx, tx_hash, last_error, created_at_ms, updated_at_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
  ON CONFLICT (withdrawal_id) DO NOTHING`;

/**
 * A withdrawal's row and its first transaction, in one statement: both or neither. The same signed
 * bytes saved again (the same hash) are the same transaction, recorded once.
 */
const insertSignedSql = `WITH inserted AS (
    INSERT INTO chain_withdrawals (withdrawal_id, status, nonce, from_address, to_address, units, raw_tx, tx_hash,
      last_error, created_at_ms, updated_at_ms)
    VALUES ($1, 'SIGNED', $2, $3, $4, $5, $6, $7, NULL, $8, $8)
    ON CONFLICT (withdrawal_id) DO NOTHING
    RETURNING withdrawal_id),
  recorded AS (
    INSERT INTO chain_withdrawal_transactions (tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms)
    SELECT $7, withdrawal_id, $2, $6, 'PENDING', $8 FROM inserted
    ON CONFLICT (tx_hash) DO NOTHING)
  SELECT count(*)::int AS written FROM inserted`;

/** A replacement becomes the withdrawal's transaction and joins its transactions, in one statement. */
const replaceSql = `WITH replaced AS (
    UPDATE chain_withdrawals SET raw_tx = $4, tx_hash = $5, status = 'SIGNED', last_error = NULL, updated_at_ms = $6
    WHERE withdrawal_id = $1 AND nonce = $2 AND tx_hash = $3 AND status IN ('SIGNED', 'SENT')
    RETURNING withdrawal_id),
  recorded AS (
    INSERT INTO chain_withdrawal_transactions (tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms)
    SELECT $5, withdrawal_id, $2, $4, 'PENDING', $6 FROM replaced
    ON CONFLICT (tx_hash) DO NOTHING)
  SELECT count(*)::int AS written FROM replaced`;

const updateWithdrawalSet = `status = $2, tx_hash = coalesce($3, tx_hash), block_number = coalesce($4, block_number),
    last_error = $5, broadcasts = broadcasts + $6, updated_at_ms = $7`;

/** A final status, and the nonce's transactions settled: the mined one MINED, the others DEAD. */
const settleSql = `WITH updated AS (
    UPDATE chain_withdrawals SET ${updateWithdrawalSet} WHERE withdrawal_id = $1 RETURNING withdrawal_id, nonce)
  UPDATE chain_withdrawal_transactions t
  SET state = CASE WHEN t.tx_hash = $8::text THEN 'MINED' ELSE 'DEAD' END
  FROM updated u
  WHERE t.withdrawal_id = u.withdrawal_id AND t.nonce = u.nonce AND t.state = 'PENDING'`;

export async function openPostgresChainStore(pool: PostgresPool): Promise<ChainStore> {
  await applyPostgresMigrations(pool, "chain", chainMigrations);

  const depositRows = async (name: string, text: string, values: unknown[]) =>
    (await pool.query<DepositRow>({ name, text, values })).rows.map(depositOf);
  const withdrawalRows = async (name: string, text: string, values: unknown[]) =>
    (await pool.query<WithdrawalRow>({ name, text, values })).rows.map(withdrawalOf);
  const getDeposit = async (txHash: string, logIndex: number) =>
    (
      await depositRows(
        "predex-chain-deposit",
        `SELECT ${depositColumns} FROM chain_deposits WHERE tx_hash = $1 AND log_index = $2`,
        [txHash, logIndex],
      )
    )[0];
  const getWithdrawal = async (withdrawalId: number) =>
    (
      await withdrawalRows(
        "predex-chain-withdrawal",
        `SELECT ${withdrawalColumns} FROM chain_withdrawals WHERE withdrawal_id = $1`,
        [withdrawalId],
      )
    )[0];
  const insertWithdrawal = async (values: unknown[]): Promise<boolean> => {
    const result = await pool.query({
      name: "predex-chain-insert-withdrawal",
      text: insertWithdrawalSql,
      values,
    });
    return result.rowCount === 1;
  };

  return {
    async cursor(name) {
      const result = await pool.query<{ block_number: bigint }>({
        name: "predex-chain-cursor",
        text: "SELECT block_number FROM chain_cursors WHERE name = $1",
        values: [name],
      });
      return result.rows[0]?.block_number;
    },
    async setCursor(name, blockNumber, nowMs) {
      await pool.query({
        name: "predex-chain-set-cursor",
        text: `INSERT INTO chain_cursors (name, block_number, updated_at_ms) VALUES ($1, $2, $3)
               ON CONFLICT (name) DO UPDATE SET block_number = excluded.block_number, updated_at_ms = excluded.updated_at_ms`,
        values: [name, blockNumber, nowMs],
      });
    },

    async recordSeen(seen) {
      // New: inserted PENDING. Seen before in another block, or dropped: moved to this block and
      // PENDING again. Credited or below the minimum: kept. One statement; RETURNING gives the row
      // when it was written, and a read gives it when it was kept.
      const written = await depositRows(
        "predex-chain-record-seen",
        `INSERT INTO chain_deposits AS d (tx_hash, log_index, user_id, address, units, amount_atoms, dust_units,
           block_number, block_hash, status, seen_at_ms, updated_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'PENDING', $10, $10)
         ON CONFLICT (tx_hash, log_index) DO UPDATE
           SET block_number = excluded.block_number, block_hash = excluded.block_hash, status = 'PENDING',
               updated_at_ms = excluded.updated_at_ms
           WHERE d.status IN ('PENDING', 'DROPPED') AND (d.block_hash <> excluded.block_hash OR d.status = 'DROPPED')
         RETURNING ${depositColumns}`,
        [
          seen.txHash,
          seen.logIndex,
          seen.userId,
          seen.address,
          seen.units.toString(),
          seen.amountAtoms,
          seen.dustUnits.toString(),
          seen.blockNumber,
          seen.blockHash,
          seen.seenAtMs,
        ],
      );
      return written[0] ?? (await getDeposit(seen.txHash, seen.logIndex))!;
    },
    async setDepositStatus(txHash, logIndex, status, nowMs) {
      await pool.query({
        name: "predex-chain-set-deposit-status",
        text: "UPDATE chain_deposits SET status = $1, updated_at_ms = $2 WHERE tx_hash = $3 AND log_index = $4",
        values: [status, nowMs, txHash, logIndex],
      });
    },
    deposit: getDeposit,
    async pendingDeposits() {
      return depositRows(
        "predex-chain-pending-deposits",
        `SELECT ${depositColumns} FROM chain_deposits WHERE status = 'PENDING'
         ORDER BY block_number, log_index LIMIT $1`,
        [pendingDepositsMax],
      );
    },
    async uncreditedOf(userId, limit) {
      // The count rides on every row (a window over the whole match), so one round trip answers both.
      const result = await pool.query<DepositRow & { total: bigint }>({
        name: "predex-chain-uncredited-of",
        text: `SELECT ${depositColumns}, count(*) OVER () AS total FROM chain_deposits
               WHERE user_id = $1 AND status IN ('PENDING', 'BELOW_MINIMUM')
               ORDER BY seen_at_ms DESC, tx_hash, log_index LIMIT $2`,
        values: [userId, limit],
      });
      if (result.rows.length > 0 || limit > 0) {
        return { total: Number(result.rows[0]?.total ?? 0n), records: result.rows.map(depositOf) };
      }
      const counted = await pool.query<{ total: bigint }>({
        name: "predex-chain-uncredited-count",
        text: "SELECT count(*) AS total FROM chain_deposits WHERE user_id = $1 AND status IN ('PENDING', 'BELOW_MINIMUM')",
        values: [userId],
      });
      return { total: Number(counted.rows[0]?.total ?? 0n), records: [] };
    },
    async deposits(status, limit, offset) {
      return status === undefined
        ? depositRows(
            "predex-chain-deposits-all",
            `SELECT ${depositColumns} FROM chain_deposits
             ORDER BY seen_at_ms DESC, tx_hash, log_index LIMIT $1 OFFSET $2`,
            [limit, offset],
          )
        : depositRows(
            "predex-chain-deposits-by-status",
            `SELECT ${depositColumns} FROM chain_deposits WHERE status = $1
             ORDER BY seen_at_ms DESC, tx_hash, log_index LIMIT $2 OFFSET $3`,
            [status, limit, offset],
          );
    },

    withdrawal: getWithdrawal,
    async saveSigned(signed) {
      const result = await pool.query<{ written: number }>({
        name: "predex-chain-save-signed",
        text: insertSignedSql,
        values: [
          signed.withdrawalId,
          signed.nonce,
          signed.fromAddress,
          signed.toAddress,
          signed.units.toString(),
          signed.rawTx,
          signed.txHash,
          signed.nowMs,
        ],
      });
      return result.rows[0]?.written === 1;
    },
    async saveReplacement(replacement) {
      const result = await pool.query<{ written: number }>({
        name: "predex-chain-save-replacement",
        text: replaceSql,
        values: [
          replacement.withdrawalId,
          replacement.nonce,
          replacement.previousTxHash,
          replacement.rawTx,
          replacement.txHash,
          replacement.nowMs,
        ],
      });
      return result.rows[0]?.written === 1;
    },
    async adoptTransaction(withdrawalId, txHash, nowMs) {
      await pool.query({
        name: "predex-chain-adopt-transaction",
        text: `UPDATE chain_withdrawals w SET status = 'SENT', tx_hash = t.tx_hash, raw_tx = t.raw_tx, updated_at_ms = $3
               FROM chain_withdrawal_transactions t
               WHERE w.withdrawal_id = $1 AND w.status IN ('SIGNED', 'SENT')
                 AND t.tx_hash = $2 AND t.withdrawal_id = w.withdrawal_id AND t.nonce = w.nonce`,
        values: [withdrawalId, txHash, nowMs],
      });
    },
    async withdrawalTransactions(withdrawalId) {
      const result = await pool.query<TransactionRow>({
        name: "predex-chain-withdrawal-transactions",
        text: `SELECT tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms FROM chain_withdrawal_transactions
               WHERE withdrawal_id = $1 ORDER BY signed_at_ms, nonce, tx_hash`,
        values: [withdrawalId],
      });
      return result.rows.map(transactionOf);
    },
    async saveUnsendable(withdrawalId, toAddress, units, error, nowMs) {
      return insertWithdrawal([
        withdrawalId,
        "FAILED",
        null,
        null,
        toAddress,
        units.toString(),
        null,
        null,
        error,
        nowMs,
      ]);
    },
    async setWithdrawal(withdrawalId, change) {
      const values = [
        withdrawalId,
        change.status,
        change.txHash ?? null,
        change.blockNumber ?? null,
        change.lastError ?? null,
        change.broadcasted === true ? 1 : 0,
        change.nowMs,
      ];
      if (change.minedTxHash !== undefined) {
        await pool.query({
          name: "predex-chain-settle-withdrawal",
          text: settleSql,
          values: [...values, change.minedTxHash],
        });
        return;
      }
      await pool.query({
        name: "predex-chain-set-withdrawal",
        text: `UPDATE chain_withdrawals SET ${updateWithdrawalSet} WHERE withdrawal_id = $1`,
        values,
      });
    },
    async hold(withdrawalId, toAddress, nowMs) {
      return inTransaction(pool, async (client) => {
        // Nothing sent yet: a HELD row keeps the sender from ever signing it.
        const inserted = await client.query({
          name: "predex-chain-insert-withdrawal",
          text: insertWithdrawalSql,
          values: [withdrawalId, "HELD", null, null, toAddress, "0", null, null, null, nowMs],
        });
        if (inserted.rowCount === 1) return undefined;
        // Sent, and what was sent failed or was dropped (or held already): held, its error kept.
        const held = await client.query({
          name: "predex-chain-hold-withdrawal",
          text: `UPDATE chain_withdrawals SET status = 'HELD', updated_at_ms = $2
                 WHERE withdrawal_id = $1 AND status IN ('FAILED', 'DROPPED', 'HELD')`,
          values: [withdrawalId, nowMs],
        });
        if (held.rowCount === 1) return undefined;
        const forbidding = await client.query<WithdrawalRow>({
          name: "predex-chain-withdrawal",
          text: `SELECT ${withdrawalColumns} FROM chain_withdrawals WHERE withdrawal_id = $1`,
          values: [withdrawalId],
        });
        const row = forbidding.rows[0];
        return row === undefined ? undefined : withdrawalOf(row);
      });
    },
    async release(withdrawalId) {
      await pool.query({
        name: "predex-chain-release",
        text: "DELETE FROM chain_withdrawals WHERE withdrawal_id = $1",
        values: [withdrawalId],
      });
    },
    async activeWithdrawals() {
      return withdrawalRows(
        "predex-chain-active-withdrawals",
        `SELECT ${withdrawalColumns} FROM chain_withdrawals WHERE status IN ('SIGNED', 'SENT')
         ORDER BY nonce, withdrawal_id`,
        [],
      );
    },
    async highestNonce(fromAddress) {
      const result = await pool.query<{ nonce: bigint | null }>({
        name: "predex-chain-highest-nonce",
        text: "SELECT max(nonce) AS nonce FROM chain_withdrawals WHERE from_address = $1",
        values: [fromAddress],
      });
      const nonce = result.rows[0]?.nonce ?? null;
      return nonce === null ? undefined : Number(nonce);
    },
    async withdrawals(status, limit, offset) {
      return status === undefined
        ? withdrawalRows(
            "predex-chain-withdrawals-all",
            `SELECT ${withdrawalColumns} FROM chain_withdrawals ORDER BY withdrawal_id DESC LIMIT $1 OFFSET $2`,
            [limit, offset],
          )
        : withdrawalRows(
            "predex-chain-withdrawals-by-status",
            `SELECT ${withdrawalColumns} FROM chain_withdrawals WHERE status = $1
             ORDER BY withdrawal_id DESC LIMIT $2 OFFSET $3`,
            [status, limit, offset],
          );
    },
  };
}

function depositOf(row: DepositRow): ChainDeposit {
  return {
    txHash: row.tx_hash,
    logIndex: Number(row.log_index),
    userId: Number(row.user_id),
    address: row.address,
    units: BigInt(row.units),
    amountAtoms: BigInt(row.amount_atoms),
    dustUnits: BigInt(row.dust_units),
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash,
    status: row.status,
    seenAtMs: Number(row.seen_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

function withdrawalOf(row: WithdrawalRow): ChainWithdrawal {
  return {
    withdrawalId: Number(row.withdrawal_id),
    status: row.status,
    nonce: row.nonce === null ? null : Number(row.nonce),
    fromAddress: row.from_address,
    toAddress: row.to_address,
    units: BigInt(row.units),
    rawTx: row.raw_tx,
    txHash: row.tx_hash,
    blockNumber: row.block_number === null ? null : BigInt(row.block_number),
    broadcasts: Number(row.broadcasts),
    lastError: row.last_error,
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

function transactionOf(row: TransactionRow): WithdrawalTransaction {
  return {
    txHash: row.tx_hash,
    withdrawalId: Number(row.withdrawal_id),
    nonce: Number(row.nonce),
    rawTx: row.raw_tx,
    state: row.state,
    signedAtMs: Number(row.signed_at_ms),
  };
}
