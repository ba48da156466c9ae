// What the chain wallet keeps between restarts (DESIGN §4): the watcher's block cursor, every
// deposit transfer it has seen (pending until its confirmations, then credited; a reorganised one
// dropped), and every on-chain withdrawal with its signed transaction, saved before it is broadcast
// so that a restart sends the same transaction again and never a second one. The chain service and
// the surfaces use this port; the store is written once here (chainStoreOn) over either database's
// statements, and src/store/sqlite/chain-store.ts and src/store/postgres/chain-store.ts bring only
// the writes each makes atomic in its own way. Every method is async: on PostgreSQL each is a round trip.

import {
  type BoundStatements,
  columns,
  ddl,
  type IntegerColumn,
  mapped,
  perDialect,
  type Sql,
  sql,
  toBigint,
  toNumber,
  toNumberOrNull,
} from "./sql.js";

/**
 * PENDING: seen, not yet confirmed. CREDITED: credited through the engine. DROPPED: its block left
 * the chain before the confirmations (a reorganisation). BELOW_MINIMUM: confirmed, too small to
 * credit automatically (the operator may credit it by hand).
 */
export type ChainDepositStatus = "PENDING" | "CREDITED" | "DROPPED" | "BELOW_MINIMUM";

export interface ChainDeposit {
  readonly txHash: string;
  readonly logIndex: number;
  readonly userId: number;
  /** Lower case. */
  readonly address: string;
  /** In the token's own units. */
  readonly units: bigint;
  readonly amountAtoms: bigint;
  readonly dustUnits: bigint;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly status: ChainDepositStatus;
  readonly seenAtMs: number;
  readonly updatedAtMs: number;
}

/**
 * HELD: the operator is acting on it by hand (reject, complete). SIGNED: the transaction is signed
 * and saved, perhaps broadcast. SENT: the node has accepted it. COMPLETED: confirmed and completed
 * in the ledger (or completed by the operator with the hash of a transaction sent elsewhere).
 * FAILED: reverted on chain, or would revert; DROPPED: its nonce was taken by another transaction.
 * FAILED and DROPPED wait for the operator (retry or reject); the funds stay frozen meanwhile.
 */
export type ChainWithdrawalStatus = "HELD" | "SIGNED" | "SENT" | "COMPLETED" | "FAILED" | "DROPPED";
export const chainWithdrawalStatuses: readonly ChainWithdrawalStatus[] = [
  "HELD",
  "SIGNED",
  "SENT",
  "COMPLETED",
  "FAILED",
  "DROPPED",
];

export interface ChainWithdrawal {
  readonly withdrawalId: number;
  readonly status: ChainWithdrawalStatus;
  readonly nonce: number | null;
  readonly fromAddress: string | null;
  readonly toAddress: string;
  readonly units: bigint;
  /** The signed transaction (0x-hex): signed bytes only, no key. */
  readonly rawTx: string | null;
  readonly txHash: string | null;
  readonly blockNumber: bigint | null;
  readonly broadcasts: number;
  readonly lastError: string | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/**
 * One signed transaction of a withdrawal: the first, and each replacement at the same nonce with
 * higher fees (a transaction stuck under a rising base fee). PENDING: it may still be mined.
 * Exactly one transaction per nonce can be mined: once the withdrawal is settled that one is
 * MINED and every other of the nonce DEAD (never minable again); all DEAD when the nonce went to a
 * transaction that is not the withdrawal's (DROPPED).
 */
export type WithdrawalTransactionState = "PENDING" | "MINED" | "DEAD";

export interface WithdrawalTransaction {
  readonly txHash: string;
  readonly withdrawalId: number;
  readonly nonce: number;
  /** The signed bytes (0x-hex): the fees are read from them. */
  readonly rawTx: string;
  readonly state: WithdrawalTransactionState;
  readonly signedAtMs: number;
}

/** The deposit watcher's cursor in chain_cursors. */
export const depositCursorName = "deposits";

/** How many pending deposits the watcher tracks at once, and how many a user's history shows. */
export const pendingDepositsMax = 10_000;
export const userPendingDepositsShownMax = 100;

export interface ChainStore {
  cursor(name: string): Promise<bigint | undefined>;
  setCursor(name: string, blockNumber: bigint, nowMs: number): Promise<void>;
  /**
   * Records a transfer seen in a block. A new one is PENDING; one seen before in another block
   * (a reorganisation moved it) takes the new block and is PENDING again; a credited one is kept.
   * Returns the deposit as it now is.
   */
  recordSeen(seen: Omit<ChainDeposit, "status" | "updatedAtMs">): Promise<ChainDeposit>;
  setDepositStatus(
    txHash: string,
    logIndex: number,
    status: ChainDepositStatus,
    nowMs: number,
  ): Promise<void>;
  deposit(txHash: string, logIndex: number): Promise<ChainDeposit | undefined>;
  /** Oldest block first, at most pendingDepositsMax. */
  pendingDeposits(): Promise<ChainDeposit[]>;
  /** The user's deposits seen but not credited (pending or below the minimum), newest first. */
  uncreditedOf(userId: number, limit: number): Promise<{ total: number; records: ChainDeposit[] }>;
  deposits(status: ChainDepositStatus | undefined, limit: number, offset: number): Promise<ChainDeposit[]>;

  withdrawal(withdrawalId: number): Promise<ChainWithdrawal | undefined>;
  /**
   * Saves a signed transaction before it is broadcast, and records it as the withdrawal's first
   * transaction (one atomic write); false when the withdrawal already has a row (sent before, or
   * held by the operator), so it is never signed twice.
   */
  saveSigned(signed: {
    withdrawalId: number;
    nonce: number;
    fromAddress: string;
    toAddress: string;
    units: bigint;
    rawTx: string;
    txHash: string;
    nowMs: number;
  }): Promise<boolean>;
  /**
   * Saves a replacement of the withdrawal's in-flight transaction, at the same nonce, before it is
   * broadcast: it becomes the withdrawal's transaction (status SIGNED until the node takes it) and
   * is added to its transactions, in one atomic write. False, and nothing written, unless the
   * withdrawal is still in flight (SIGNED or SENT) at that nonce with `previousTxHash` as its
   * transaction: a replacement is never made from a stale read.
   */
  saveReplacement(replacement: {
    withdrawalId: number;
    nonce: number;
    previousTxHash: string;
    rawTx: string;
    txHash: string;
    nowMs: number;
  }): Promise<boolean>;
  /**
   * An earlier transaction of the withdrawal's nonce was mined: it becomes the withdrawal's
   * transaction again (hash and bytes), status SENT. Only while the withdrawal is in flight.
   */
  adoptTransaction(withdrawalId: number, txHash: string, nowMs: number): Promise<void>;
  /** Every transaction ever signed for the withdrawal, oldest first (also those of an earlier nonce, before a retry). */
  withdrawalTransactions(withdrawalId: number): Promise<WithdrawalTransaction[]>;
  /** A withdrawal that cannot be sent (it would revert, or its amount cannot be carried): to the operator. */
  saveUnsendable(
    withdrawalId: number,
    toAddress: string,
    units: bigint,
    error: string,
    nowMs: number,
  ): Promise<boolean>;
  setWithdrawal(withdrawalId: number, change: ChainWithdrawalChange): Promise<void>;
  /**
   * The operator takes a withdrawal over (to reject or complete it by hand): allowed when nothing
   * was sent, or what was sent failed or was dropped. Returns the row that forbids it, if any.
   */
  hold(withdrawalId: number, toAddress: string, nowMs: number): Promise<ChainWithdrawal | undefined>;
  /** Forgets a held, failed or dropped withdrawal, so it is sent afresh (or held again) later. */
  release(withdrawalId: number): Promise<void>;
  activeWithdrawals(): Promise<ChainWithdrawal[]>;
  highestNonce(fromAddress: string): Promise<number | undefined>;
  withdrawals(
    status: ChainWithdrawalStatus | undefined,
    limit: number,
    offset: number,
  ): Promise<ChainWithdrawal[]>;
}

/** A withdrawal's new status, with what came with it (a hash, a block, an error, one more broadcast). */
export interface ChainWithdrawalChange {
  readonly status: ChainWithdrawalStatus;
  readonly nowMs: number;
  readonly txHash?: string;
  readonly blockNumber?: bigint;
  readonly lastError?: string | null;
  readonly broadcasted?: boolean;
  /**
   * With a final status (COMPLETED, FAILED, DROPPED) from the sender: the transaction of the
   * withdrawal's nonce that was mined (null: none of them). In the same atomic write it is marked
   * MINED and every other PENDING transaction of the nonce DEAD.
   */
  readonly minedTxHash?: string | null;
}

// ---- How both adapters store these records: one schema, one row type and mapper per record, and
// the store itself over the statements both run alike. What each database makes atomic its own way
// stays in its adapter, named (ChainAtomicWrites): SQLite in a synchronous transaction, PostgreSQL in
// one statement (a write that must not be made twice is never a read followed by a write in JS:
// the operator's desk on any API node holds withdrawals while the chain service sends them).

// The schema renders to the exact text each database first ran: SQLite's was written in upper case
// and STRICT; PostgreSQL keeps token units as numeric(78, 0) (any uint256, read back as a string:
// 18-decimal tokens pass 2^63) where SQLite keeps their decimal text, and has three more indexes.
const text = perDialect({ sqlite: "TEXT", postgres: "text" });
const int32 = perDialect({ sqlite: "INTEGER", postgres: "integer" });
const uint256 = perDialect({ sqlite: "TEXT", postgres: "numeric(78, 0)" });
const postgresOnly = (words: string) => perDialect({ sqlite: "", postgres: words });

export const chainMigrations: readonly Sql[] = [
  sql`CREATE TABLE chain_cursors (
     name ${text} PRIMARY KEY,
     block_number ${ddl.int64} NOT NULL,
     updated_at_ms ${ddl.int64} NOT NULL
   )${ddl.strict};
   CREATE TABLE chain_deposits (
     tx_hash ${text} NOT NULL,
     log_index ${int32} NOT NULL,
     user_id ${ddl.int64} NOT NULL,
     address ${text} NOT NULL,
     units ${uint256} NOT NULL,
     amount_atoms ${ddl.int64} NOT NULL,
     dust_units ${uint256} NOT NULL,
     block_number ${ddl.int64} NOT NULL,
     block_hash ${text} NOT NULL,
     status ${text} NOT NULL,
     seen_at_ms ${ddl.int64} NOT NULL,
     updated_at_ms ${ddl.int64} NOT NULL,
     PRIMARY KEY (tx_hash, log_index)
   )${ddl.strict};
   CREATE INDEX chain_deposits_by_status ON chain_deposits (status, block_number${postgresOnly(", log_index")});
   CREATE INDEX chain_deposits_by_user ON chain_deposits (user_id, status, seen_at_ms);${postgresOnly(`
   CREATE INDEX chain_deposits_by_seen ON chain_deposits (seen_at_ms DESC, tx_hash, log_index);`)}
   CREATE TABLE chain_withdrawals (
     withdrawal_id ${ddl.int64} PRIMARY KEY,
     status ${text} NOT NULL,
     nonce ${ddl.int64},
     from_address ${text},
     to_address ${text} NOT NULL,
     units ${uint256} NOT NULL,
     raw_tx ${text},
     tx_hash ${text},
     block_number ${ddl.int64},
     broadcasts ${int32} NOT NULL DEFAULT 0,
     last_error ${text},
     created_at_ms ${ddl.int64} NOT NULL,
     updated_at_ms ${ddl.int64} NOT NULL
   )${ddl.strict};
   CREATE INDEX chain_withdrawals_by_status ON chain_withdrawals (status${postgresOnly(", withdrawal_id")});${postgresOnly(`
   CREATE INDEX chain_withdrawals_by_from ON chain_withdrawals (from_address, nonce);`)}`,
  // Every transaction signed for a withdrawal: the first and each fee replacement at its nonce.
  // Withdrawals in flight when this came in get their one transaction; finished ones keep only the
  // hash on their own row.
  sql`CREATE TABLE chain_withdrawal_transactions (
     tx_hash ${text} PRIMARY KEY,
     withdrawal_id ${ddl.int64} NOT NULL,
     nonce ${ddl.int64} NOT NULL,
     raw_tx ${text} NOT NULL,
     state ${text} NOT NULL,
     signed_at_ms ${ddl.int64} NOT NULL
   )${ddl.strict};
   CREATE INDEX chain_withdrawal_transactions_by_withdrawal
     ON chain_withdrawal_transactions (withdrawal_id, nonce, signed_at_ms);
   INSERT INTO chain_withdrawal_transactions (tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms)
     SELECT tx_hash, withdrawal_id, nonce, raw_tx, 'PENDING', created_at_ms FROM chain_withdrawals
     WHERE status IN ('SIGNED', 'SENT') AND tx_hash IS NOT NULL AND raw_tx IS NOT NULL AND nonce IS NOT NULL;`,
];

/** Token units as text on SQLite, numeric as a string on PostgreSQL: either way a decimal string. */
interface DepositRow {
  tx_hash: string;
  log_index: IntegerColumn;
  user_id: IntegerColumn;
  address: string;
  units: string;
  amount_atoms: IntegerColumn;
  dust_units: string;
  block_number: IntegerColumn;
  block_hash: string;
  status: ChainDepositStatus;
  seen_at_ms: IntegerColumn;
  updated_at_ms: IntegerColumn;
}

export interface ChainWithdrawalRow {
  withdrawal_id: IntegerColumn;
  status: ChainWithdrawalStatus;
  nonce: IntegerColumn | null;
  from_address: string | null;
  to_address: string;
  units: string;
  raw_tx: string | null;
  tx_hash: string | null;
  block_number: IntegerColumn | null;
  broadcasts: IntegerColumn;
  last_error: string | null;
  created_at_ms: IntegerColumn;
  updated_at_ms: IntegerColumn;
}

interface TransactionRow {
  tx_hash: string;
  withdrawal_id: IntegerColumn;
  nonce: IntegerColumn;
  raw_tx: string;
  state: WithdrawalTransactionState;
  signed_at_ms: IntegerColumn;
}

function depositOf(row: DepositRow): ChainDeposit {
  return {
    txHash: row.tx_hash,
    logIndex: toNumber(row.log_index),
    userId: toNumber(row.user_id),
    address: row.address,
    units: BigInt(row.units),
    amountAtoms: toBigint(row.amount_atoms),
    dustUnits: BigInt(row.dust_units),
    blockNumber: toBigint(row.block_number),
    blockHash: row.block_hash,
    status: row.status,
    seenAtMs: toNumber(row.seen_at_ms),
    updatedAtMs: toNumber(row.updated_at_ms),
  };
}

export function chainWithdrawalOf(row: ChainWithdrawalRow): ChainWithdrawal {
  return {
    withdrawalId: toNumber(row.withdrawal_id),
    status: row.status,
    nonce: toNumberOrNull(row.nonce),
    fromAddress: row.from_address,
    toAddress: row.to_address,
    units: BigInt(row.units),
    rawTx: row.raw_tx,
    txHash: row.tx_hash,
    blockNumber: row.block_number === null ? null : toBigint(row.block_number),
    broadcasts: toNumber(row.broadcasts),
    lastError: row.last_error,
    createdAtMs: toNumber(row.created_at_ms),
    updatedAtMs: toNumber(row.updated_at_ms),
  };
}

function transactionOf(row: TransactionRow): WithdrawalTransaction {
  return {
    txHash: row.tx_hash,
    withdrawalId: toNumber(row.withdrawal_id),
    nonce: toNumber(row.nonce),
    rawTx: row.raw_tx,
    state: row.state,
    signedAtMs: toNumber(row.signed_at_ms),
  };
}

const depositColumns = columns(`tx_hash, log_index, user_id, address, units, amount_atoms, dust_units,
  block_number, block_hash, status, seen_at_ms, updated_at_ms`);
const withdrawalColumns = columns(`withdrawal_id, status, nonce, from_address, to_address, units, raw_tx,
  tx_hash, block_number, broadcasts, last_error, created_at_ms, updated_at_ms`);
const depositsNewestFirst = sql`ORDER BY seen_at_ms DESC, tx_hash, log_index`;
const uncredited = sql<{ userId: number }>`user_id = ${"userId"} AND status IN ('PENDING', 'BELOW_MINIMUM')`;
const page = sql<{ limit: number; offset: number }>`LIMIT ${"limit"} OFFSET ${"offset"}`;

/** A new withdrawal row: SIGNED, or (nothing signed) HELD or FAILED. */
export interface NewWithdrawalRow {
  withdrawalId: number;
  status: ChainWithdrawalStatus;
  nonce: number | null;
  fromAddress: string | null;
  toAddress: string;
  units: string;
  rawTx: string | null;
  txHash: string | null;
  lastError: string | null;
  nowMs: number;
}

/** The change of ChainWithdrawalChange as bound: absent values null, `broadcasted` 1 or 0. */
export type WithdrawalUpdate = {
  withdrawalId: number;
  status: ChainWithdrawalStatus;
  txHash: string | null;
  blockNumber: bigint | null;
  lastError: string | null;
  broadcasted: number;
  nowMs: number;
};

export function withdrawalUpdateOf(withdrawalId: number, change: ChainWithdrawalChange): WithdrawalUpdate {
  return {
    withdrawalId,
    status: change.status,
    txHash: change.txHash ?? null,
    blockNumber: change.blockNumber ?? null,
    lastError: change.lastError ?? null,
    broadcasted: change.broadcasted === true ? 1 : 0,
    nowMs: change.nowMs,
  };
}

/** The SET of a withdrawal's update, shared by the plain update and PostgreSQL's settling one. */
export const withdrawalUpdateSet = sql<WithdrawalUpdate>`status = ${"status"}, tx_hash = coalesce(${"txHash"}, tx_hash),
       block_number = coalesce(${"blockNumber"}, block_number), last_error = ${"lastError"},
       broadcasts = broadcasts + ${"broadcasted"}, updated_at_ms = ${"nowMs"}`;

export type SavedSigned = Parameters<ChainStore["saveSigned"]>[0];
export type SavedReplacement = Parameters<ChainStore["saveReplacement"]>[0];

export const chainStatements = {
  cursor: sql<{ name: string }>`SELECT block_number FROM chain_cursors WHERE name = ${"name"}`,
  setCursor: sql<{
    name: string;
    blockNumber: bigint;
    nowMs: number;
  }>`INSERT INTO chain_cursors (name, block_number, updated_at_ms) VALUES (${"name"}, ${"blockNumber"}, ${"nowMs"})
     ON CONFLICT (name) DO UPDATE SET block_number = excluded.block_number, updated_at_ms = excluded.updated_at_ms`,
  // New: inserted PENDING. Seen before in another block, or dropped: moved to this block and PENDING
  // again. Credited or below the minimum: kept. RETURNING gives the row when it was written.
  recordSeen: sql<
    Omit<ChainDeposit, "status" | "updatedAtMs" | "units" | "dustUnits"> & {
      units: string;
      dustUnits: string;
    }
  >`INSERT INTO chain_deposits AS d (tx_hash, log_index, user_id, address, units, amount_atoms, dust_units,
       block_number, block_hash, status, seen_at_ms, updated_at_ms)
     VALUES (${"txHash"}, ${"logIndex"}, ${"userId"}, ${"address"}, ${"units"}, ${"amountAtoms"}, ${"dustUnits"},
       ${"blockNumber"}, ${"blockHash"}, 'PENDING', ${"seenAtMs"}, ${"seenAtMs"})
     ON CONFLICT (tx_hash, log_index) DO UPDATE
       SET block_number = excluded.block_number, block_hash = excluded.block_hash, status = 'PENDING',
           updated_at_ms = excluded.updated_at_ms
       WHERE d.status IN ('PENDING', 'DROPPED') AND (d.block_hash <> excluded.block_hash OR d.status = 'DROPPED')
     RETURNING ${depositColumns}`,
  setDepositStatus: sql<{
    txHash: string;
    logIndex: number;
    status: ChainDepositStatus;
    nowMs: number;
  }>`UPDATE chain_deposits SET status = ${"status"}, updated_at_ms = ${"nowMs"}
     WHERE tx_hash = ${"txHash"} AND log_index = ${"logIndex"}`,
  deposit: sql<{ txHash: string; logIndex: number }>`SELECT ${depositColumns} FROM chain_deposits
     WHERE tx_hash = ${"txHash"} AND log_index = ${"logIndex"}`,
  pendingDeposits: sql<{ limit: number }>`SELECT ${depositColumns} FROM chain_deposits
     WHERE status = 'PENDING' ORDER BY block_number, log_index LIMIT ${"limit"}`,
  // The count rides on every row (a window over the whole match), so one round trip answers both.
  uncredited: sql<{ userId: number; limit: number }>`SELECT ${depositColumns}, count(*) OVER () AS total
     FROM chain_deposits WHERE ${uncredited} ${depositsNewestFirst} LIMIT ${"limit"}`,
  uncreditedCount: sql<{ userId: number }>`SELECT count(*) AS total FROM chain_deposits WHERE ${uncredited}`,
  depositsAll: sql<{ limit: number; offset: number }>`SELECT ${depositColumns} FROM chain_deposits
     ${depositsNewestFirst} ${page}`,
  depositsByStatus: sql<{
    status: ChainDepositStatus;
    limit: number;
    offset: number;
  }>`SELECT ${depositColumns}
     FROM chain_deposits WHERE status = ${"status"} ${depositsNewestFirst} ${page}`,

  withdrawal: sql<{ withdrawalId: number }>`SELECT ${withdrawalColumns} FROM chain_withdrawals
     WHERE withdrawal_id = ${"withdrawalId"}`,
  insertWithdrawal: sql<NewWithdrawalRow>`INSERT INTO chain_withdrawals (withdrawal_id, status, nonce,
       from_address, to_address, units, raw_tx, tx_hash, last_error, created_at_ms, updated_at_ms)
     VALUES (${"withdrawalId"}, ${"status"}, ${"nonce"}, ${"fromAddress"}, ${"toAddress"}, ${"units"}, ${"rawTx"},
       ${"txHash"}, ${"lastError"}, ${"nowMs"}, ${"nowMs"})
     ON CONFLICT (withdrawal_id) DO NOTHING`,
  // Sent, and what was sent failed or was dropped (or held already): held, its error kept.
  holdWithdrawal: sql<{ withdrawalId: number; nowMs: number }>`UPDATE chain_withdrawals
     SET status = 'HELD', updated_at_ms = ${"nowMs"}
     WHERE withdrawal_id = ${"withdrawalId"} AND status IN ('FAILED', 'DROPPED', 'HELD')`,
  updateWithdrawal: sql<WithdrawalUpdate>`UPDATE chain_withdrawals SET ${withdrawalUpdateSet}
     WHERE withdrawal_id = ${"withdrawalId"}`,
  adoptTransaction: sql<{
    withdrawalId: number;
    txHash: string;
    nowMs: number;
  }>`UPDATE chain_withdrawals AS w SET status = 'SENT', tx_hash = t.tx_hash, raw_tx = t.raw_tx, updated_at_ms = ${"nowMs"}
     FROM chain_withdrawal_transactions t
     WHERE w.withdrawal_id = ${"withdrawalId"} AND w.status IN ('SIGNED', 'SENT')
       AND t.tx_hash = ${"txHash"} AND t.withdrawal_id = w.withdrawal_id AND t.nonce = w.nonce`,
  transactionsOf: sql<{
    withdrawalId: number;
  }>`SELECT tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms FROM chain_withdrawal_transactions
     WHERE withdrawal_id = ${"withdrawalId"} ORDER BY signed_at_ms, nonce, tx_hash`,
  release: sql<{
    withdrawalId: number;
  }>`DELETE FROM chain_withdrawals WHERE withdrawal_id = ${"withdrawalId"}`,
  activeWithdrawals: sql`SELECT ${withdrawalColumns} FROM chain_withdrawals WHERE status IN ('SIGNED', 'SENT')
     ORDER BY nonce, withdrawal_id`,
  highestNonce: sql<{
    fromAddress: string;
  }>`SELECT max(nonce) AS nonce FROM chain_withdrawals WHERE from_address = ${"fromAddress"}`,
  withdrawalsAll: sql<{ limit: number; offset: number }>`SELECT ${withdrawalColumns} FROM chain_withdrawals
     ORDER BY withdrawal_id DESC ${page}`,
  withdrawalsByStatus: sql<{
    status: ChainWithdrawalStatus;
    limit: number;
    offset: number;
  }>`SELECT ${withdrawalColumns} FROM chain_withdrawals WHERE status = ${"status"}
     ORDER BY withdrawal_id DESC ${page}`,
};

/** The new row of a withdrawal that cannot be sent or is held before anything was signed. */
export function unsignedWithdrawalRow(
  withdrawalId: number,
  status: "HELD" | "FAILED",
  toAddress: string,
  units: bigint,
  lastError: string | null,
  nowMs: number,
): NewWithdrawalRow {
  const unsigned = { nonce: null, fromAddress: null, rawTx: null, txHash: null };
  return { withdrawalId, status, toAddress, units: units.toString(), lastError, nowMs, ...unsigned };
}

export function signedWithdrawalRow(signed: SavedSigned): NewWithdrawalRow {
  return { ...signed, status: "SIGNED", units: signed.units.toString(), lastError: null };
}

/**
 * The writes each database makes atomic its own way: SQLite in a synchronous transaction of several
 * statements, PostgreSQL in one statement (or a transaction for `hold`).
 */
export type ChainAtomicWrites = Pick<ChainStore, "saveSigned" | "saveReplacement" | "setWithdrawal" | "hold">;

export function chainStoreOn(
  statements: BoundStatements<typeof chainStatements>,
  atomic: ChainAtomicWrites,
): ChainStore {
  return { ...atomic, ...chainDepositsOn(statements), ...chainWithdrawalsOn(statements) };
}

/** The cursor and the deposits seen on chain. */
function chainDepositsOn(statements: BoundStatements<typeof chainStatements>) {
  const deposit = async (txHash: string, logIndex: number) =>
    mapped(await statements.deposit.row<DepositRow>({ txHash, logIndex }), depositOf);
  return {
    async cursor(name) {
      const row = await statements.cursor.row<{ block_number: IntegerColumn }>({ name });
      return row === undefined ? undefined : toBigint(row.block_number);
    },
    async setCursor(name, blockNumber, nowMs) {
      await statements.setCursor.run({ name, blockNumber, nowMs });
    },
    async recordSeen(seen) {
      const units = seen.units.toString();
      const dustUnits = seen.dustUnits.toString();
      const written = await statements.recordSeen.row<DepositRow>({ ...seen, units, dustUnits });
      return written === undefined ? (await deposit(seen.txHash, seen.logIndex))! : depositOf(written);
    },
    async setDepositStatus(txHash, logIndex, status, nowMs) {
      await statements.setDepositStatus.run({ txHash, logIndex, status, nowMs });
    },
    deposit,
    async pendingDeposits() {
      return (await statements.pendingDeposits.rows<DepositRow>({ limit: pendingDepositsMax })).map(
        depositOf,
      );
    },
    async uncreditedOf(userId, limit) {
      const rows = await statements.uncredited.rows<DepositRow & { total: IntegerColumn }>({ userId, limit });
      if (rows.length > 0 || limit > 0) {
        return { total: rows.length === 0 ? 0 : toNumber(rows[0]!.total), records: rows.map(depositOf) };
      }
      const counted = await statements.uncreditedCount.row<{ total: IntegerColumn }>({ userId });
      return { total: toNumber(counted?.total ?? 0), records: [] };
    },
    async deposits(status, limit, offset) {
      const rows =
        status === undefined
          ? statements.depositsAll.rows<DepositRow>({ limit, offset })
          : statements.depositsByStatus.rows<DepositRow>({ status, limit, offset });
      return (await rows).map(depositOf);
    },
  } satisfies Partial<ChainStore>;
}

/** The withdrawals' reads and the writes that are one statement each. */
function chainWithdrawalsOn(statements: BoundStatements<typeof chainStatements>) {
  const withdrawals = async (found: Promise<ChainWithdrawalRow[]>) => (await found).map(chainWithdrawalOf);
  return {
    async withdrawal(withdrawalId) {
      return mapped(await statements.withdrawal.row<ChainWithdrawalRow>({ withdrawalId }), chainWithdrawalOf);
    },
    async adoptTransaction(withdrawalId, txHash, nowMs) {
      await statements.adoptTransaction.run({ withdrawalId, txHash, nowMs });
    },
    async withdrawalTransactions(withdrawalId) {
      return (await statements.transactionsOf.rows<TransactionRow>({ withdrawalId })).map(transactionOf);
    },
    async saveUnsendable(withdrawalId, toAddress, units, error, nowMs) {
      const row = unsignedWithdrawalRow(withdrawalId, "FAILED", toAddress, units, error, nowMs);
      return (await statements.insertWithdrawal.run(row)) === 1;
    },
    async release(withdrawalId) {
      await statements.release.run({ withdrawalId });
    },
    activeWithdrawals: () => withdrawals(statements.activeWithdrawals.rows({})),
    async highestNonce(fromAddress) {
      const row = await statements.highestNonce.row<{ nonce: IntegerColumn | null }>({ fromAddress });
      return row?.nonce == null ? undefined : toNumber(row.nonce);
    },
    withdrawals: (status, limit, offset) =>
      withdrawals(
        status === undefined
          ? statements.withdrawalsAll.rows({ limit, offset })
          : statements.withdrawalsByStatus.rows({ status, limit, offset }),
      ),
  } satisfies Partial<ChainStore>;
}
