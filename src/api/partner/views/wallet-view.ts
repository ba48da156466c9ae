// How deposits, withdrawals and ledger entries look on the current interface (and the admin API).

import type {
  DepositRecord as DepositView,
  LedgerEntry,
  Withdrawal,
} from "../../../contract/partner/wallet.js";
import { isoSeconds } from "../../../contract/wire-format.js";
import { formatAtoms } from "../../../core/money.js";
import type {
  DepositRecord,
  LedgerEntryRecord,
  WithdrawalRecord,
} from "../../../store/exchange-read-models.js";
import { depositNetwork } from "../../../wallet/deposit-addresses.js";

/** The only currency (spec 000: `coinId` is the string `2`). */
export const walletCoinId = "2";

export function depositView(deposit: DepositRecord): DepositView {
  return {
    txHash: deposit.txHash,
    coinId: walletCoinId,
    network: depositNetwork,
    amount: formatAtoms(deposit.amount),
    status: "CREDITED",
    createdAt: isoSeconds(deposit.creditedAtMs),
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
