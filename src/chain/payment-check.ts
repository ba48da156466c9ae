// Checks the transaction an operator names when completing a withdrawal paid from outside predex
// (POST /admin/withdrawals/{id}/complete {txHash}): mined, succeeded, buried by the confirmations,
// and carrying a Transfer of the token of exactly the withdrawal's amount to its address. A typo'd
// or unrelated hash would otherwise complete a withdrawal nobody paid.

import { type Hex, parseEventLogs } from "viem";
import type { ChainWallet } from "./chain-wallet.js";
import { erc20Abi } from "./erc20.js";
import { atomsToUnits } from "./token-units.js";

/** Why the transaction does not pay this withdrawal, or undefined when it does. */
export async function paymentProblem(
  wallet: ChainWallet,
  txHash: string,
  recipient: string,
  amountAtoms: bigint,
): Promise<string | undefined> {
  const units = atomsToUnits(amountAtoms, wallet.decimals);
  if (units === undefined) return `the amount has more than the token's ${wallet.decimals} decimals`;
  const receipt = await wallet.client.getTransactionReceipt({ hash: txHash as Hex }).catch(() => undefined);
  if (receipt === undefined) return `transaction ${txHash} is not mined on chain ${wallet.chainId}`;
  if (receipt.status !== "success") return `transaction ${txHash} reverted`;
  const head = await wallet.client.getBlockNumber({ cacheTime: 0 });
  const confirmations = head - receipt.blockNumber + 1n;
  if (confirmations < BigInt(wallet.confirmations)) {
    return `transaction ${txHash} has ${confirmations} of ${wallet.confirmations} confirmations`;
  }
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs });
  const pays = transfers.some(
    (log) =>
      log.address.toLowerCase() === wallet.token.toLowerCase() &&
      log.args.to.toLowerCase() === recipient.toLowerCase() &&
      log.args.value === units,
  );
  return pays ? undefined : `transaction ${txHash} does not transfer ${units} token units to ${recipient}`;
}
