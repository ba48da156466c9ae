// What the chain wallet keeps between restarts (DESIGN §4): the watcher's block cursor, every
// deposit transfer it has seen (pending until its confirmations, then credited; a reorganised one
// dropped), and every on-chain withdrawal with its signed transaction, saved before it is broadcast
// so that a restart sends the same transaction again and never a second one. The chain service and
// the surfaces use this port; src/store/sqlite/chain-store.ts and src/store/postgres/chain-store.ts
// implement it. Every method is async: on PostgreSQL each is a round trip.

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
