// PostgreSQL adapter of the chain wallet's port (src/store/chain-store.ts; the store is written once
// there). Here are only the writes PostgreSQL makes atomic in one statement: the chain service runs
// on one node at a time, but the operator's desk (any API node) holds and releases withdrawals
// against it, so every decision that must not be made twice is one statement (INSERT … ON CONFLICT
// DO NOTHING for "signed once", a conditional UPDATE for "hold"), never a read followed by a write in JS.

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
  type WithdrawalUpdate,
  withdrawalUpdateOf,
  withdrawalUpdateSet,
} from "../chain-store.js";
import { sql } from "../sql.js";
import { inTransaction, type PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements, postgresText, preparePostgres } from "./statements.js";

const prefix = "predex-chain";

const own = {
  /**
   * A withdrawal's row and its first transaction, in one statement: both or neither. The same
   * signed bytes saved again (the same hash) are the same transaction, recorded once.
   */
  saveSigned: preparePostgres(
    `${prefix}-save-signed`,
    sql<ReturnType<typeof signedWithdrawalRow>>`WITH inserted AS (
       INSERT INTO chain_withdrawals (withdrawal_id, status, nonce, from_address, to_address, units, raw_tx,
         tx_hash, last_error, created_at_ms, updated_at_ms)
       VALUES (${"withdrawalId"}, 'SIGNED', ${"nonce"}, ${"fromAddress"}, ${"toAddress"}, ${"units"}, ${"rawTx"},
         ${"txHash"}, NULL, ${"nowMs"}, ${"nowMs"})
       ON CONFLICT (withdrawal_id) DO NOTHING
       RETURNING withdrawal_id),
     recorded AS (
       INSERT INTO chain_withdrawal_transactions (tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms)
       SELECT ${"txHash"}, withdrawal_id, ${"nonce"}, ${"rawTx"}, 'PENDING', ${"nowMs"} FROM inserted
       ON CONFLICT (tx_hash) DO NOTHING)
     SELECT count(*)::int AS written FROM inserted`,
  ),
  /** A replacement becomes the withdrawal's transaction and joins its transactions, in one statement. */
  saveReplacement: preparePostgres(
    `${prefix}-save-replacement`,
    sql<SavedReplacement>`WITH replaced AS (
       UPDATE chain_withdrawals SET raw_tx = ${"rawTx"}, tx_hash = ${"txHash"}, status = 'SIGNED', last_error = NULL,
         updated_at_ms = ${"nowMs"}
       WHERE withdrawal_id = ${"withdrawalId"} AND nonce = ${"nonce"} AND tx_hash = ${"previousTxHash"}
         AND status IN ('SIGNED', 'SENT')
       RETURNING withdrawal_id),
     recorded AS (
       INSERT INTO chain_withdrawal_transactions (tx_hash, withdrawal_id, nonce, raw_tx, state, signed_at_ms)
       SELECT ${"txHash"}, withdrawal_id, ${"nonce"}, ${"rawTx"}, 'PENDING', ${"nowMs"} FROM replaced
       ON CONFLICT (tx_hash) DO NOTHING)
     SELECT count(*)::int AS written FROM replaced`,
  ),
  /** A final status, and the nonce's transactions settled: the mined one MINED, the others DEAD. */
  settleWithdrawal: preparePostgres(
    `${prefix}-settle-withdrawal`,
    sql<WithdrawalUpdate & { minedTxHash: string | null }>`WITH updated AS (
       UPDATE chain_withdrawals SET ${withdrawalUpdateSet} WHERE withdrawal_id = ${"withdrawalId"}
       RETURNING withdrawal_id, nonce)
     UPDATE chain_withdrawal_transactions t
     SET state = CASE WHEN t.tx_hash = ${"minedTxHash"}::text THEN 'MINED' ELSE 'DEAD' END
     FROM updated u
     WHERE t.withdrawal_id = u.withdrawal_id AND t.nonce = u.nonce AND t.state = 'PENDING'`,
  ),
  // The shared statements `hold` runs on its transaction's connection (same names, same texts).
  insertWithdrawal: preparePostgres(`${prefix}-insert-withdrawal`, chainStatements.insertWithdrawal),
  holdWithdrawal: preparePostgres(`${prefix}-hold-withdrawal`, chainStatements.holdWithdrawal),
  withdrawal: preparePostgres(`${prefix}-withdrawal`, chainStatements.withdrawal),
};

export async function openPostgresChainStore(pool: PostgresPool): Promise<ChainStore> {
  await applyPostgresMigrations(pool, "chain", chainMigrations.map(postgresText));
  const statements = postgresStatements(pool, prefix, chainStatements);
  const written = async (result: Promise<{ written: number } | undefined>) => (await result)?.written === 1;
  return chainStoreOn(statements, {
    saveSigned: (signed: SavedSigned) =>
      written(own.saveSigned.row<{ written: number }>(pool, signedWithdrawalRow(signed))),
    saveReplacement: (replacement) =>
      written(own.saveReplacement.row<{ written: number }>(pool, replacement)),
    async setWithdrawal(withdrawalId, change) {
      const update = withdrawalUpdateOf(withdrawalId, change);
      if (change.minedTxHash === undefined) await statements.updateWithdrawal.run(update);
      else await own.settleWithdrawal.query(pool, { ...update, minedTxHash: change.minedTxHash });
    },
    hold: (withdrawalId, toAddress, nowMs) =>
      inTransaction(pool, async (client) => {
        // Nothing sent yet: a HELD row keeps the sender from ever signing it.
        const row = unsignedWithdrawalRow(withdrawalId, "HELD", toAddress, 0n, null, nowMs);
        if ((await own.insertWithdrawal.query(client, row)).rowCount === 1) return undefined;
        // Sent, and what was sent failed or was dropped (or held already): held, its error kept.
        if ((await own.holdWithdrawal.query(client, { withdrawalId, nowMs })).rowCount === 1)
          return undefined;
        const forbidding = await own.withdrawal.row<ChainWithdrawalRow>(client, { withdrawalId });
        return forbidding === undefined ? undefined : chainWithdrawalOf(forbidding);
      }),
  });
}
