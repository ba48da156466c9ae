// SQLite adapter of the chain wallet's port (src/store/chain-store.ts), module "chain" in the
// embedded file (its own migrations): the watcher's block cursor, every deposit transfer it has seen,
// and every on-chain withdrawal with its signed transaction. All of the chain wallet's SQL is here.

import {
  type ChainDeposit,
  type ChainDepositStatus,
  type ChainStore,
  type ChainWithdrawal,
  type ChainWithdrawalChange,
  type ChainWithdrawalStatus,
  pendingDepositsMax,
  type WithdrawalTransaction,
  type WithdrawalTransactionState,
} from "../chain-store.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

export const chainMigrations: readonly string[] = [
  `CREATE TABLE chain_cursors (
     name TEXT PRIMARY KEY,
     block_number INTEGER NOT NULL,
     updated_at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE chain_deposits (
     tx_hash TEXT NOT NULL,
     log_index INTEGER NOT NULL,
     user_id INTEGER NOT NULL,
     address TEXT NOT NULL,
     units TEXT NOT NULL,
     amount_atoms INTEGER NOT NULL,
     dust_units TEXT NOT NULL,
     block_number INTEGER NOT NULL,
     block_hash TEXT NOT NULL,
     status TEXT NOT NULL,
     seen_at_ms INTEGER NOT NULL,
     updated_at_ms INTEGER NOT NULL,
     PRIMARY KEY (tx_hash, log_index)
   ) STRICT;
   CREATE INDEX chain_deposits_by_status ON chain_deposits (status, block_number);
   CREATE INDEX chain_deposits_by_user ON chain_deposits (user_id, status, seen_at_ms);
   CREATE TABLE chain_withdrawals (
     withdrawal_id INTEGER PRIMARY KEY,
     status TEXT NOT NULL,
     nonce INTEGER,
     from_address TEXT,
     to_address TEXT NOT NULL,
     units TEXT NOT NULL,
     raw_tx TEXT,
     tx_hash TEXT,
     block_number INTEGER,
     broadcasts INTEGER NOT NULL DEFAULT 0,
     last_error TEXT,
     created_at_ms INTEGER NOT NULL,
     updated_at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX chain_withdrawals_by_status ON chain_withdrawals (status);`,
  // Every transaction signed for a withdrawal: the first and each fee replacement at its nonce.
  // Withdrawals in flight when this came in get their one transaction; finished ones keep only the
  // hash on their own row.
  `CREATE TABLE chain_withdrawal_transactions (
     tx_hash TEXT PRIMARY KEY,
     withdrawal_id INTEGER NOT NULL,
     nonce INTEGER NOT NULL,
     raw_tx TEXT NOT NULL,
     state TEXT NOT NULL,
     signed_at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX chain_withdrawal_transactions_by_withdrawal
     ON chain_withdrawal_transactions (withdrawal_id, nonce, signed_at_ms);
   INSERT INTO chain_withdrawal_transactions (tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms)
     SELECT tx_hash, withdrawal_id, nonce, raw_tx, 'PENDING', created_at_ms FROM chain_withdrawals
     WHERE status IN ('SIGNED', 'SENT') AND tx_hash IS NOT NULL AND raw_tx IS NOT NULL AND nonce IS NOT NULL;`,
];

interface DepositRow {
  tx_hash: string;
  log_index: number;
  user_id: number;
  address: string;
  units: string;
  amount_atoms: bigint;
  dust_units: string;
  block_number: bigint;
  block_hash: string;
  status: ChainDepositStatus;
  seen_at_ms: number;
  updated_at_ms: number;
}

interface WithdrawalRow {
  withdrawal_id: number;
  status: ChainWithdrawalStatus;
  nonce: number | null;
  from_address: string | null;
  to_address: string;
  units: string;
  raw_tx: string | null;
  tx_hash: string | null;
  block_number: bigint | null;
  broadcasts: number;
  last_error: string | null;
  created_at_ms: number;
  updated_at_ms: number;
}

interface TransactionRow {
  tx_hash: string;
  withdrawal_id: number;
  nonce: number;
  raw_tx: string;
  state: WithdrawalTransactionState;
  signed_at_ms: number;
}

export function createSqliteChainStore(db: SqliteDatabase): ChainStore {
  applyMigrations(db, "chain", chainMigrations);
  const getCursor = db
    .prepare<[string], bigint>("SELECT block_number FROM chain_cursors WHERE name = ?")
    .pluck()
    .safeIntegers(true);
  const putCursor = db.prepare(
    `INSERT INTO chain_cursors (name, block_number, updated_at_ms) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET block_number = excluded.block_number, updated_at_ms = excluded.updated_at_ms`,
  );
  const getDeposit = db
    .prepare<[string, number], DepositRow>("SELECT * FROM chain_deposits WHERE tx_hash = ? AND log_index = ?")
    .safeIntegers(true);
  const insertDeposit = db.prepare(
    `INSERT INTO chain_deposits (tx_hash, log_index, user_id, address, units, amount_atoms, dust_units,
       block_number, block_hash, status, seen_at_ms, updated_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?, ?)`,
  );
  const moveDeposit = db.prepare(
    `UPDATE chain_deposits SET block_number = ?, block_hash = ?, status = 'PENDING', updated_at_ms = ?
     WHERE tx_hash = ? AND log_index = ? AND status IN ('PENDING', 'DROPPED')`,
  );
  const setDepositStatus = db.prepare(
    "UPDATE chain_deposits SET status = ?, updated_at_ms = ? WHERE tx_hash = ? AND log_index = ?",
  );
  const pendingDeposits = db
    .prepare<[number], DepositRow>(
      "SELECT * FROM chain_deposits WHERE status = 'PENDING' ORDER BY block_number, log_index LIMIT ?",
    )
    .safeIntegers(true);
  const userUncredited = db
    .prepare<[number, number], DepositRow>(
      `SELECT * FROM chain_deposits WHERE user_id = ? AND status IN ('PENDING', 'BELOW_MINIMUM')
       ORDER BY seen_at_ms DESC, tx_hash, log_index LIMIT ?`,
    )
    .safeIntegers(true);
  const countUserUncredited = db
    .prepare<[number], bigint>(
      "SELECT count(*) FROM chain_deposits WHERE user_id = ? AND status IN ('PENDING', 'BELOW_MINIMUM')",
    )
    .pluck()
    .safeIntegers(true);
  const depositsByStatus = db
    .prepare<[string, number, number], DepositRow>(
      "SELECT * FROM chain_deposits WHERE status = ? ORDER BY seen_at_ms DESC, tx_hash, log_index LIMIT ? OFFSET ?",
    )
    .safeIntegers(true);
  const allDeposits = db
    .prepare<[number, number], DepositRow>(
      "SELECT * FROM chain_deposits ORDER BY seen_at_ms DESC, tx_hash, log_index LIMIT ? OFFSET ?",
    )
    .safeIntegers(true);

  const getWithdrawal = db
    .prepare<[number], WithdrawalRow>("SELECT * FROM chain_withdrawals WHERE withdrawal_id = ?")
    .safeIntegers(true);
  const insertWithdrawal = db.prepare(
    `INSERT INTO chain_withdrawals (withdrawal_id, status, nonce, from_address, to_address, units, raw_tx, tx_hash,
       last_error, created_at_ms, updated_at_ms)
     VALUES (@withdrawalId, @status, @nonce, @fromAddress, @toAddress, @units, @rawTx, @txHash, @lastError, @nowMs, @nowMs)
     ON CONFLICT (withdrawal_id) DO NOTHING`,
  );
  const updateWithdrawal = db.prepare(
    `UPDATE chain_withdrawals SET status = @status, tx_hash = coalesce(@txHash, tx_hash),
       block_number = coalesce(@blockNumber, block_number), last_error = @lastError,
       broadcasts = broadcasts + @broadcasted, updated_at_ms = @nowMs
     WHERE withdrawal_id = @withdrawalId`,
  );
  const deleteWithdrawal = db.prepare("DELETE FROM chain_withdrawals WHERE withdrawal_id = ?");
  const insertTransaction = db.prepare(
    // The same signed bytes saved again (the same hash) are the same transaction, recorded once.
    `INSERT INTO chain_withdrawal_transactions (tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms)
     VALUES (?, ?, ?, ?, 'PENDING', ?) ON CONFLICT (tx_hash) DO NOTHING`,
  );
  const replaceTransaction = db.prepare(
    `UPDATE chain_withdrawals SET raw_tx = @rawTx, tx_hash = @txHash, status = 'SIGNED', last_error = NULL,
       updated_at_ms = @nowMs
     WHERE withdrawal_id = @withdrawalId AND nonce = @nonce AND tx_hash = @previousTxHash
       AND status IN ('SIGNED', 'SENT')`,
  );
  const adoptTransaction = db.prepare(
    `UPDATE chain_withdrawals SET status = 'SENT', updated_at_ms = @nowMs,
       tx_hash = (SELECT tx_hash FROM chain_withdrawal_transactions WHERE tx_hash = @txHash),
       raw_tx = (SELECT raw_tx FROM chain_withdrawal_transactions WHERE tx_hash = @txHash)
     WHERE withdrawal_id = @withdrawalId AND status IN ('SIGNED', 'SENT')
       AND EXISTS (SELECT 1 FROM chain_withdrawal_transactions
                   WHERE tx_hash = @txHash AND withdrawal_id = @withdrawalId AND nonce = chain_withdrawals.nonce)`,
  );
  const settleTransactions = db.prepare(
    `UPDATE chain_withdrawal_transactions
     SET state = CASE WHEN tx_hash = @minedTxHash THEN 'MINED' ELSE 'DEAD' END
     WHERE withdrawal_id = @withdrawalId AND state = 'PENDING'
       AND nonce = (SELECT nonce FROM chain_withdrawals WHERE withdrawal_id = @withdrawalId)`,
  );
  const transactionsOf = db.prepare<[number], TransactionRow>(
    "SELECT * FROM chain_withdrawal_transactions WHERE withdrawal_id = ? ORDER BY signed_at_ms, nonce, tx_hash",
  );
  const activeWithdrawals = db
    .prepare<[], WithdrawalRow>(
      "SELECT * FROM chain_withdrawals WHERE status IN ('SIGNED', 'SENT') ORDER BY nonce, withdrawal_id",
    )
    .safeIntegers(true);
  const highestNonce = db
    .prepare<[string], number | null>("SELECT max(nonce) FROM chain_withdrawals WHERE from_address = ?")
    .pluck();
  const withdrawalsByStatus = db
    .prepare<[string, number, number], WithdrawalRow>(
      "SELECT * FROM chain_withdrawals WHERE status = ? ORDER BY withdrawal_id DESC LIMIT ? OFFSET ?",
    )
    .safeIntegers(true);
  const allWithdrawals = db
    .prepare<[number, number], WithdrawalRow>(
      "SELECT * FROM chain_withdrawals ORDER BY withdrawal_id DESC LIMIT ? OFFSET ?",
    )
    .safeIntegers(true);

  const hold = db.transaction(
    (withdrawalId: number, toAddress: string, nowMs: number): ChainWithdrawal | undefined => {
      const row = getWithdrawal.get(withdrawalId);
      if (row === undefined) {
        insertWithdrawal.run({
          withdrawalId,
          status: "HELD",
          nonce: null,
          fromAddress: null,
          toAddress,
          units: "0",
          rawTx: null,
          txHash: null,
          lastError: null,
          nowMs,
        });
        return undefined;
      }
      const existing = withdrawalOf(row);
      if (existing.status === "FAILED" || existing.status === "DROPPED" || existing.status === "HELD") {
        setWithdrawal(withdrawalId, { status: "HELD", nowMs, lastError: existing.lastError });
        return undefined;
      }
      return existing;
    },
  );

  const setWithdrawal = db.transaction((withdrawalId: number, change: ChainWithdrawalChange): void => {
    updateWithdrawal.run({
      withdrawalId,
      status: change.status,
      txHash: change.txHash ?? null,
      blockNumber: change.blockNumber ?? null,
      lastError: change.lastError ?? null,
      broadcasted: change.broadcasted === true ? 1 : 0,
      nowMs: change.nowMs,
    });
    if (change.minedTxHash !== undefined)
      settleTransactions.run({ withdrawalId, minedTxHash: change.minedTxHash });
  });
  const saveSigned = db.transaction((signed: Parameters<ChainStore["saveSigned"]>[0]): boolean => {
    const inserted =
      insertWithdrawal.run({
        ...signed,
        status: "SIGNED",
        units: signed.units.toString(),
        lastError: null,
      }).changes === 1;
    if (inserted)
      insertTransaction.run(signed.txHash, signed.withdrawalId, signed.nonce, signed.rawTx, signed.nowMs);
    return inserted;
  });
  const saveReplacement = db.transaction(
    (replacement: Parameters<ChainStore["saveReplacement"]>[0]): boolean => {
      if (replaceTransaction.run(replacement).changes !== 1) return false;
      insertTransaction.run(
        replacement.txHash,
        replacement.withdrawalId,
        replacement.nonce,
        replacement.rawTx,
        replacement.nowMs,
      );
      return true;
    },
  );

  return {
    async cursor(name: string): Promise<bigint | undefined> {
      return getCursor.get(name);
    },
    async setCursor(name: string, blockNumber: bigint, nowMs: number): Promise<void> {
      putCursor.run(name, blockNumber, nowMs);
    },

    /**
     * Records a transfer seen in a block. A new one is PENDING; one seen before in another block
     * (a reorganisation moved it) takes the new block and is PENDING again; a credited one is kept.
     * Returns the deposit as it now is.
     */
    async recordSeen(seen: Omit<ChainDeposit, "status" | "updatedAtMs">): Promise<ChainDeposit> {
      const row = getDeposit.get(seen.txHash, seen.logIndex);
      if (row === undefined) {
        insertDeposit.run(
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
          seen.seenAtMs,
        );
      } else if (row.block_hash !== seen.blockHash || row.status === "DROPPED") {
        moveDeposit.run(seen.blockNumber, seen.blockHash, seen.seenAtMs, seen.txHash, seen.logIndex);
      }
      return depositOf(getDeposit.get(seen.txHash, seen.logIndex)!);
    },
    async setDepositStatus(
      txHash: string,
      logIndex: number,
      status: ChainDepositStatus,
      nowMs: number,
    ): Promise<void> {
      setDepositStatus.run(status, nowMs, txHash, logIndex);
    },
    async deposit(txHash: string, logIndex: number): Promise<ChainDeposit | undefined> {
      const row = getDeposit.get(txHash, logIndex);
      return row === undefined ? undefined : depositOf(row);
    },
    /** Oldest block first. */
    async pendingDeposits(): Promise<ChainDeposit[]> {
      return pendingDeposits.all(pendingDepositsMax).map(depositOf);
    },
    /** The user's deposits seen but not credited (pending or below the minimum), newest first. */
    async uncreditedOf(userId: number, limit: number): Promise<{ total: number; records: ChainDeposit[] }> {
      return {
        total: Number(countUserUncredited.get(userId) ?? 0n),
        records: userUncredited.all(userId, limit).map(depositOf),
      };
    },
    async deposits(
      status: ChainDepositStatus | undefined,
      limit: number,
      offset: number,
    ): Promise<ChainDeposit[]> {
      const rows =
        status === undefined ? allDeposits.all(limit, offset) : depositsByStatus.all(status, limit, offset);
      return rows.map(depositOf);
    },

    async withdrawal(withdrawalId: number): Promise<ChainWithdrawal | undefined> {
      const row = getWithdrawal.get(withdrawalId);
      return row === undefined ? undefined : withdrawalOf(row);
    },
    /**
     * Saves a signed transaction before it is broadcast; false when the withdrawal already has a
     * row (sent before, or held by the operator), so it is never signed twice.
     */
    async saveSigned(signed) {
      return saveSigned(signed);
    },
    async saveReplacement(replacement) {
      return saveReplacement(replacement);
    },
    async adoptTransaction(withdrawalId, txHash, nowMs) {
      adoptTransaction.run({ withdrawalId, txHash, nowMs });
    },
    async withdrawalTransactions(withdrawalId) {
      return transactionsOf.all(withdrawalId).map(transactionOf);
    },
    /** A withdrawal that cannot be sent (it would revert, or its amount cannot be carried): to the operator. */
    async saveUnsendable(
      withdrawalId: number,
      toAddress: string,
      units: bigint,
      error: string,
      nowMs: number,
    ): Promise<boolean> {
      return (
        insertWithdrawal.run({
          withdrawalId,
          status: "FAILED",
          nonce: null,
          fromAddress: null,
          toAddress,
          units: units.toString(),
          rawTx: null,
          txHash: null,
          lastError: error,
          nowMs,
        }).changes === 1
      );
    },
    async setWithdrawal(withdrawalId: number, change: ChainWithdrawalChange): Promise<void> {
      setWithdrawal(withdrawalId, change);
    },
    /**
     * The operator takes a withdrawal over (to reject or complete it by hand): allowed when nothing
     * was sent, or what was sent failed or was dropped. Returns the row that forbids it, if any.
     */
    async hold(withdrawalId: number, toAddress: string, nowMs: number): Promise<ChainWithdrawal | undefined> {
      return hold(withdrawalId, toAddress, nowMs);
    },
    /** Forgets a held, failed or dropped withdrawal, so it is sent afresh (or held again) later. */
    async release(withdrawalId: number): Promise<void> {
      deleteWithdrawal.run(withdrawalId);
    },
    async activeWithdrawals(): Promise<ChainWithdrawal[]> {
      return activeWithdrawals.all().map(withdrawalOf);
    },
    async highestNonce(fromAddress: string): Promise<number | undefined> {
      return highestNonce.get(fromAddress) ?? undefined;
    },
    async withdrawals(
      status: ChainWithdrawalStatus | undefined,
      limit: number,
      offset: number,
    ): Promise<ChainWithdrawal[]> {
      const rows =
        status === undefined
          ? allWithdrawals.all(limit, offset)
          : withdrawalsByStatus.all(status, limit, offset);
      return rows.map(withdrawalOf);
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
