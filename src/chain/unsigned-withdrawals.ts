// Approved withdrawals as unsigned transactions, for operators who sign elsewhere (a hardware or
// offline wallet) and so run without PREDEX_WITHDRAWAL_KEY_FILE. Each is the ERC20 transfer of
// exactly the withdrawal's amount (the fee stays with the platform). Given the signing address,
// nonces (one after another from its pending nonce), gas and EIP-1559 fees are filled in and each
// comes serialized, ready to sign; without it, the call itself (to, data, value) is given.
// The operator broadcasts the signed transaction, then completes the withdrawal with its hash
// (POST /admin/withdrawals/{id}/complete {txHash}).

import { type Address, encodeFunctionData, type Hex, serializeTransaction } from "viem";
import { formatAtoms } from "../core/money.js";
import type { WithdrawalRecord } from "../store/exchange-read-models.js";
import type { ChainWallet } from "./chain-wallet.js";
import { erc20Abi } from "./erc20.js";
import { atomsToUnits } from "./token-units.js";

export interface UnsignedWithdrawal {
  readonly withdrawId: string;
  readonly userId: string;
  readonly recipient: string;
  /** USDT the recipient receives (decimal string). */
  readonly amount: string;
  /** The same in the token's units (decimal string). */
  readonly tokenUnits: string;
  readonly chainId: number;
  readonly to: string;
  readonly value: "0";
  readonly data: string;
  /** With `from`: the filled-in transaction, unsigned and serialized (EIP-1559, type 2). */
  readonly from: string | null;
  readonly nonce: number | null;
  readonly gas: string | null;
  readonly maxFeePerGas: string | null;
  readonly maxPriorityFeePerGas: string | null;
  readonly unsignedTransaction: string | null;
  /** Why this one cannot be sent as it is (its amount is finer than the token's decimals). */
  readonly problem: string | null;
}

export async function unsignedWithdrawals(
  wallet: ChainWallet,
  withdrawals: readonly WithdrawalRecord[],
  from: Address | undefined,
): Promise<UnsignedWithdrawal[]> {
  const { client, token, decimals, chainId } = wallet;
  let nonce =
    from === undefined ? undefined : await client.getTransactionCount({ address: from, blockTag: "pending" });
  const fees = from === undefined ? undefined : await client.estimateFeesPerGas();
  const exported: UnsignedWithdrawal[] = [];
  for (const withdrawal of withdrawals) {
    const units = atomsToUnits(withdrawal.amount, decimals);
    const recipient = withdrawal.address.toLowerCase() as Address;
    const data: Hex =
      units === undefined
        ? "0x"
        : encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [recipient, units] });
    const base = {
      withdrawId: String(withdrawal.withdrawalId),
      userId: String(withdrawal.userId),
      recipient: withdrawal.address,
      amount: formatAtoms(withdrawal.amount),
      tokenUnits: units === undefined ? "" : units.toString(),
      chainId,
      to: token,
      value: "0" as const,
      data,
    };
    if (units === undefined || from === undefined || fees === undefined || nonce === undefined) {
      exported.push({
        ...base,
        from: null,
        nonce: null,
        gas: null,
        maxFeePerGas: null,
        maxPriorityFeePerGas: null,
        unsignedTransaction: null,
        problem: units === undefined ? `amount has more than the token's ${decimals} decimals` : null,
      });
      continue;
    }
    let gas: bigint | undefined;
    let problem: string | null = null;
    try {
      gas = ((await client.estimateGas({ account: from, to: token, data })) * 120n) / 100n;
    } catch (error) {
      problem = `would revert from ${from}: ${(error as { shortMessage?: string }).shortMessage ?? String(error)}`;
    }
    const unsignedTransaction =
      gas === undefined
        ? null
        : serializeTransaction({
            type: "eip1559",
            chainId,
            nonce,
            to: token,
            data,
            value: 0n,
            gas,
            maxFeePerGas: fees.maxFeePerGas,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          });
    exported.push({
      ...base,
      from,
      nonce: gas === undefined ? null : nonce,
      gas: gas === undefined ? null : gas.toString(),
      maxFeePerGas: fees.maxFeePerGas.toString(),
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
      unsignedTransaction,
      problem,
    });
    if (gas !== undefined) nonce += 1;
  }
  return exported;
}
