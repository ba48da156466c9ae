// How deposits, withdrawals and ledger entries look on the current interface (and the admin API).

import { parseDepositKey } from "../../../chain/deposit-policy.js";
import type {
  DepositRecord as DepositView,
  LedgerEntry,
  Withdrawal,
} from "../../../contract/partner/wallet.js";
import { isoSeconds } from "../../../contract/wire-format.js";
import { formatAtoms } from "../../../core/money.js";
import type { ChainDeposit } from "../../../store/chain-store.js";
import type {
  DepositRecord,
  LedgerEntryRecord,
  WithdrawalRecord,
} from "../../../store/exchange-read-models.js";
import { depositNetwork } from "../../../wallet/deposit-addresses.js";

/** The only currency (spec 000: `coinId` is the string `2`). */
export const walletCoinId = "2";

export function depositView(deposit: DepositRecord): DepositView {
  // The chain watcher credits under `txHash:logIndex`; a deposit entered by hand has its txHash alone.
  const onChain = parseDepositKey(deposit.txHash);
  return {
    txHash: onChain?.txHash ?? deposit.txHash,
    logIndex: onChain?.logIndex ?? null,
    coinId: walletCoinId,
    network: depositNetwork,
    amount: formatAtoms(deposit.amount),
    status: "CREDITED",
    confirmations: null,
    confirmationsRequired: null,
    createdAt: isoSeconds(deposit.creditedAtMs),
  };
}

/** A deposit the chain watcher has seen and not credited: pending, or below the minimum. */
export function uncreditedDepositView(
  deposit: ChainDeposit,
  head: bigint | undefined,
  confirmationsRequired: number,
): DepositView {
  const pending = deposit.status === "PENDING";
  const confirmations =
    head === undefined || head < deposit.blockNumber ? 0 : Number(head - deposit.blockNumber + 1n);
  return {
    txHash: deposit.txHash,
    logIndex: deposit.logIndex,
    coinId: walletCoinId,
    network: depositNetwork,
    amount: formatAtoms(deposit.amountAtoms),
    status: deposit.status,
    confirmations: pending ? Math.min(confirmations, confirmationsRequired) : null,
    confirmationsRequired: pending ? confirmationsRequired : null,
    createdAt: isoSeconds(deposit.seenAtMs),
  };
}

export function withdrawalView(withdrawal: WithdrawalRecord): Withdrawal {
  return {
    withdrawId: String(withdrawal.withdrawalId),
    coinId: walletCoinId,
    network: depositNetwork,
    amount: formatAtoms(withdrawal.amount),
    fee: formatAtoms(withdrawal.fee),
    address: withdrawal.address,
    status: withdrawal.status,
    createdAt: isoSeconds(withdrawal.requestedAtMs),
    updatedAt: isoSeconds(withdrawal.updatedAtMs),
  };
}

export function ledgerEntryView(entry: LedgerEntryRecord): LedgerEntry {
  return {
    entryId: String(entry.entryId),
    type: entry.type,
    coinId: walletCoinId,
    amount: formatAtoms(entry.amount),
    balanceAfter: formatAtoms(entry.availableAfter),
    frozenAmount: formatAtoms(entry.frozenDelta),
    frozenAfter: formatAtoms(entry.frozenAfter),
    refId: entry.refId,
    time: isoSeconds(entry.timeMs),
  };
}
