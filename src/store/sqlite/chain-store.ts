// SQLite adapter of the chain wallet's port (src/store/chain-store.ts), module "chain" in the
// embedded file (its own migrations). The store is written once in the port; here are only the
// writes SQLite makes atomic in a synchronous transaction of several statements.

import {
  type ChainStore,
  type ChainWithdrawalRow,
  chainMigrations,
  chainStatements,
  chainStoreOn,
  chainWithdrawalOf,
  type SavedReplacement,
  type SavedSigned,
  signedWithdrawalRow,
  unsignedWithdrawalRow,
  withdrawalUpdateOf,
} from "../chain-store.js";
import { type Sql, sql } from "../sql.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareSqlite, sqliteStatements, sqliteText } from "./statements.js";

/** A withdrawal's transaction, recorded once: the same signed bytes saved again are the same one. */
const insertTransaction = sql<{
  txHash: string;
  withdrawalId: number;
  nonce: number;
  rawTx: string;
  nowMs: number;
}>`INSERT INTO chain_withdrawal_transactions (tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms)
   VALUES (${"txHash"}, ${"withdrawalId"}, ${"nonce"}, ${"rawTx"}, 'PENDING', ${"nowMs"}) ON CONFLICT (tx_hash) DO NOTHING`;

const replaceTransaction = sql<Omit<SavedReplacement, "rawTx"> & { rawTx: string }>`UPDATE chain_withdrawals
   SET raw_tx = ${"rawTx"}, tx_hash = ${"txHash"}, status = 'SIGNED', last_error = NULL, updated_at_ms = ${"nowMs"}
   WHERE withdrawal_id = ${"withdrawalId"} AND nonce = ${"nonce"} AND tx_hash = ${"previousTxHash"}
     AND status IN ('SIGNED', 'SENT')`;

/** The nonce's transactions settled: the mined one MINED, the others DEAD. */
const settleTransactions = sql<{
  withdrawalId: number;
  minedTxHash: string | null;
}>`UPDATE chain_withdrawal_transactions
   SET state = CASE WHEN tx_hash = ${"minedTxHash"} THEN 'MINED' ELSE 'DEAD' END
   WHERE withdrawal_id = ${"withdrawalId"} AND state = 'PENDING'
     AND nonce = (SELECT nonce FROM chain_withdrawals WHERE withdrawal_id = ${"withdrawalId"})`;

export function createSqliteChainStore(db: SqliteDatabase): ChainStore {
  applyMigrations(db, "chain", chainMigrations.map(sqliteText));
  // Integers as bigint: block numbers and amounts pass 2^53.
  const prepare = <P>(statement: Sql<P>) => prepareSqlite(db, statement, { safeIntegers: true });
  const statements = {
    withdrawal: prepare(chainStatements.withdrawal),
    insertWithdrawal: prepare(chainStatements.insertWithdrawal),
    holdWithdrawal: prepare(chainStatements.holdWithdrawal),
    updateWithdrawal: prepare(chainStatements.updateWithdrawal),
    insertTransaction: prepare(insertTransaction),
    replaceTransaction: prepare(replaceTransaction),
    settleTransactions: prepare(settleTransactions),
  };

  const saveSigned = db.transaction((signed: SavedSigned): boolean => {
    const inserted = statements.insertWithdrawal.run(signedWithdrawalRow(signed)).changes === 1;
    if (inserted) statements.insertTransaction.run(signed);
    return inserted;
  });
  const saveReplacement = db.transaction((replacement: SavedReplacement): boolean => {
    if (statements.replaceTransaction.run(replacement).changes !== 1) return false;
    statements.insertTransaction.run(replacement);
    return true;
  });
  const setWithdrawal = db.transaction(
    (...[withdrawalId, change]: Parameters<ChainStore["setWithdrawal"]>) => {
      statements.updateWithdrawal.run(withdrawalUpdateOf(withdrawalId, change));
      if (change.minedTxHash !== undefined) {
        statements.settleTransactions.run({ withdrawalId, minedTxHash: change.minedTxHash });
      }
    },
  );
  // Nothing sent yet: a HELD row keeps the sender from ever signing it; sent and failed or dropped
  // (or held already): held again. Otherwise the row that forbids it.
  const hold = db.transaction((...[withdrawalId, toAddress, nowMs]: Parameters<ChainStore["hold"]>) => {
    const row = unsignedWithdrawalRow(withdrawalId, "HELD", toAddress, 0n, null, nowMs);
    if (statements.insertWithdrawal.run(row).changes === 1) return undefined;
    if (statements.holdWithdrawal.run({ withdrawalId, nowMs }).changes === 1) return undefined;
    const forbidding = statements.withdrawal.get<ChainWithdrawalRow>({ withdrawalId });
    return forbidding === undefined ? undefined : chainWithdrawalOf(forbidding);
  });

  return chainStoreOn(sqliteStatements(db, chainStatements, { safeIntegers: true }), {
    saveSigned: async (signed) => saveSigned(signed),
    saveReplacement: async (replacement) => saveReplacement(replacement),
    setWithdrawal: async (withdrawalId, change) => setWithdrawal(withdrawalId, change),
    hold: async (withdrawalId, toAddress, nowMs) => hold(withdrawalId, toAddress, nowMs),
  });
}
