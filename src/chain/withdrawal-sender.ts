// Pays approved withdrawals on chain (DESIGN §4): each one an ERC20 transfer of exactly its amount
// from the hot wallet, EIP-1559 fees, tracked to its confirmations, then completed in the ledger
// (CompleteWithdrawal: the amount leaves, the fee is platform income) with its transaction hash.
//
// Never paid twice, never lost:
//  - A transaction is signed, then saved with its nonce (chain-store.ts) BEFORE it is broadcast.
//    Saving is insert-if-absent per withdrawal, so a withdrawal is signed once; after a crash the
//    saved bytes are broadcast again, never a new transaction.
//  - Stuck under a fee the chain no longer takes: after `replaceAfterMs` unmined, the transaction is
//    replaced AT THE SAME NONCE with both fees raised by the bump (fee-bump.ts; within the cap),
//    saved before it is broadcast like the first. One nonce can be mined once, so whichever of the
//    original and its replacements is mined pays, and the others can never be: the withdrawal is
//    completed once, with that one's hash, and the others are recorded as dead. Every transaction
//    signed for a withdrawal is kept (chain_withdrawal_transactions).
//  - The operator can reject or complete by hand only a withdrawal with nothing in flight
//    (chain-store.ts `hold`): a rejection can never race a payment.
//  - Not mined and gone from the node's pool: the same bytes are broadcast again. Its nonce taken
//    by a transaction that is none of its own (the node answers that none of its transactions
//    has a receipt; a lookup that fails proves nothing and is made again next round): DROPPED. Mined but reverted (after the
//    confirmations, so a reorganisation cannot revive it): FAILED. Would revert before sending
//    (estimateGas), or its amount has more decimals than the token: FAILED, unsigned.
//    FAILED and DROPPED go back to the operator, funds still frozen: retry (a new transaction;
//    the old one can no longer be mined) or reject (funds back to the user).
//  - A hot wallet short of tokens or gas holds the withdrawal (shown as WAITING) until topped up.

import type { Logger } from "pino";
import {
  type Address,
  type Chain,
  encodeFunctionData,
  type Hex,
  keccak256,
  type LocalAccount,
  type PublicClient,
  parseTransaction,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  type TransactionSerializedEIP1559,
  type Transport,
} from "viem";
import { formatAtoms } from "../core/money.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { ChainStore, ChainWithdrawal } from "../store/chain-store.js";
import type { ExchangeReadModels, WithdrawalRecord } from "../store/exchange-read-models.js";
import { erc20Abi } from "./erc20.js";
import {
  feesOf,
  firstFees,
  highestFees,
  replacementFees,
  transactionsPerNonceMax,
  type WithdrawalFeePolicy,
} from "./fee-bump.js";
import { atomsToUnits } from "./token-units.js";

/** Approved withdrawals taken per round (the rest wait for the next round). */
export const withdrawalsPerRoundMax = 50;
/** Gas limit over the estimate: a transfer's cost can move a little between estimate and mining. */
const gasMarginPercent = 120n;

export interface WithdrawalSenderDeps {
  readonly client: PublicClient<Transport, Chain>;
  readonly account: LocalAccount;
  readonly store: ChainStore;
  readonly engine: ExchangeEngine;
  readonly readModels: ExchangeReadModels;
  readonly token: Address;
  readonly decimals: number;
  readonly chainId: number;
  readonly confirmations: number;
  readonly pollMs: number;
  /** Fee cap and replacement of transactions that do not mine (PREDEX_WITHDRAWAL_* settings). */
  readonly fees: WithdrawalFeePolicy;
  readonly nowMs: () => number;
  readonly logger: Logger;
}

export class WithdrawalSender {
  readonly #deps: WithdrawalSenderDeps;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  /** Approved withdrawals the hot wallet cannot pay yet, and why (shown to the operator as WAITING). */
  readonly #waiting = new Map<number, string>();

  constructor(deps: WithdrawalSenderDeps) {
    this.#deps = deps;
  }

  get address(): Address {
    return this.#deps.account.address;
  }

  /** Approved withdrawals waiting for the hot wallet to be topped up, and why. */
  waiting(): ReadonlyMap<number, string> {
    return this.#waiting;
  }

  start(): void {
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  async poll(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
    this.#running = this.#round().finally(() => {
      this.#running = undefined;
    });
    await this.#running;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(async () => {
      try {
        await this.poll();
      } catch (error) {
        this.#deps.logger.warn({ err: error }, "withdrawal sender: round failed; retrying");
      }
      this.#schedule(this.#deps.pollMs);
    }, delayMs);
  }

  async #round(): Promise<void> {
    const { client, account, store } = this.#deps;
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const active = await store.activeWithdrawals();
    if (active.length > 0) {
      // How many of the hot wallet's transactions are in blocks: a withdrawal whose nonce is below
      // it has had one of its transactions mined, or lost its nonce to another.
      const minedNonce = await client.getTransactionCount({ address: account.address, blockTag: "latest" });
      for (const withdrawal of active) await this.#track(withdrawal, head, minedNonce);
    }
    const approved = await this.#deps.readModels.withdrawals(
      { status: "APPROVED" },
      { page: 1, pageSize: withdrawalsPerRoundMax },
    );
    // Oldest first: the list is newest first.
    for (const withdrawal of [...approved.records].reverse()) {
      if ((await this.#deps.store.withdrawal(withdrawal.withdrawalId)) === undefined)
        await this.#send(withdrawal);
    }
  }

  async #send(withdrawal: WithdrawalRecord): Promise<void> {
    const { client, account, store, token, decimals } = this.#deps;
    const units = atomsToUnits(withdrawal.amount, decimals);
    const to = withdrawal.address.toLowerCase() as Address;
    if (units === undefined) {
      await store.saveUnsendable(
        withdrawal.withdrawalId,
        to,
        0n,
        `amount ${formatAtoms(withdrawal.amount)} has more than the token's ${decimals} decimals`,
        this.#deps.nowMs(),
      );
      return;
    }
    const balance = await client.readContract({
      address: token,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [account.address],
    });
    if (balance < units) {
      this.#wait(withdrawal.withdrawalId, "the hot wallet holds too few tokens");
      return;
    }
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, units] });
    let gas: bigint;
    try {
      gas = await client.estimateGas({ account: account.address, to: token, data });
    } catch (error) {
      const message = shortMessage(error);
      if (/insufficient funds/i.test(message)) {
        this.#wait(withdrawal.withdrawalId, "the hot wallet holds too little for gas");
        return;
      }
      await store.saveUnsendable(
        withdrawal.withdrawalId,
        to,
        units,
        `would revert: ${message}`,
        this.#deps.nowMs(),
      );
      this.#waiting.delete(withdrawal.withdrawalId);
      return;
    }
    const fees = firstFees(await client.estimateFeesPerGas(), this.#deps.fees.maxFeePerGasCap);
    const pendingNonce = await client.getTransactionCount({ address: account.address, blockTag: "pending" });
    const savedNonce = await store.highestNonce(account.address.toLowerCase());
    const nonce = savedNonce === undefined || savedNonce < pendingNonce ? pendingNonce : savedNonce + 1;
    const rawTx = await account.signTransaction({
      type: "eip1559",
      chainId: this.#deps.chainId,
      nonce,
      to: token,
      data,
      value: 0n,
      gas: (gas * gasMarginPercent) / 100n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const txHash = keccak256(rawTx);
    const saved = await store.saveSigned({
      withdrawalId: withdrawal.withdrawalId,
      nonce,
      fromAddress: account.address.toLowerCase(),
      toAddress: to,
      units,
      rawTx,
      txHash,
      nowMs: this.#deps.nowMs(),
    });
    this.#waiting.delete(withdrawal.withdrawalId);
    // Not saved: the operator took it over meanwhile; these bytes are thrown away, never broadcast.
    if (!saved) return;
    this.#deps.logger.info(
      { withdrawalId: withdrawal.withdrawalId, txHash, nonce },
      "withdrawal sender: transaction signed and saved",
    );
    await this.#broadcast((await store.withdrawal(withdrawal.withdrawalId))!);
  }

  async #broadcast(withdrawal: ChainWithdrawal): Promise<void> {
    try {
      await this.#deps.client.sendRawTransaction({ serializedTransaction: withdrawal.rawTx as Hex });
      await this.#deps.store.setWithdrawal(withdrawal.withdrawalId, {
        status: "SENT",
        nowMs: this.#deps.nowMs(),
        broadcasted: true,
      });
    } catch (error) {
      const message = shortMessage(error);
      // The node has it already: that is a success for us.
      const known = /already known|known transaction|already imported/i.test(message);
      await this.#deps.store.setWithdrawal(withdrawal.withdrawalId, {
        status: known ? "SENT" : withdrawal.status,
        nowMs: this.#deps.nowMs(),
        lastError: known ? null : `broadcast: ${message}`,
      });
    }
  }

  async #track(withdrawal: ChainWithdrawal, head: bigint, minedNonce: number): Promise<void> {
    if (withdrawal.nonce !== null && minedNonce > withdrawal.nonce) await this.#trackMined(withdrawal, head);
    else await this.#trackPending(withdrawal);
  }

  /** The transactions of the withdrawal's nonce that may still be mined, newest first. */
  async #candidates(withdrawal: ChainWithdrawal) {
    const transactions = await this.#deps.store.withdrawalTransactions(withdrawal.withdrawalId);
    return transactions
      .filter((transaction) => transaction.nonce === withdrawal.nonce && transaction.state === "PENDING")
      .reverse();
  }

  /** Its nonce is used: one of its transactions was mined (which one?), or another transaction was. */
  async #trackMined(withdrawal: ChainWithdrawal, head: bigint): Promise<void> {
    const { store, confirmations } = this.#deps;
    const hashes = [
      withdrawal.txHash!,
      ...(await this.#candidates(withdrawal))
        .map((transaction) => transaction.txHash)
        .filter((hash) => hash !== withdrawal.txHash),
    ];
    let mined: { hash: string; receipt: TransactionReceipt } | undefined;
    for (const hash of hashes) {
      const receipt = await this.#receiptOf(hash);
      if (receipt !== undefined) {
        mined = { hash, receipt };
        break;
      }
    }
    const nowMs = this.#deps.nowMs();
    if (mined === undefined) {
      await store.setWithdrawal(withdrawal.withdrawalId, {
        status: "DROPPED",
        nowMs,
        lastError: `nonce ${withdrawal.nonce} was used by another transaction; none of this withdrawal's ${hashes.length} was mined`,
        minedTxHash: null,
      });
      return;
    }
    const { hash, receipt } = mined;
    if (hash !== withdrawal.txHash) {
      // An earlier offer of the nonce was mined (before its replacement reached a block).
      await store.adoptTransaction(withdrawal.withdrawalId, hash, nowMs);
      this.#deps.logger.info(
        { withdrawalId: withdrawal.withdrawalId, txHash: hash, replacedBy: withdrawal.txHash },
        "withdrawal sender: an earlier transaction of the nonce was mined",
      );
    } else if (withdrawal.status === "SIGNED") {
      await store.setWithdrawal(withdrawal.withdrawalId, { status: "SENT", nowMs });
    }
    if (head - receipt.blockNumber + 1n < BigInt(confirmations)) return;
    if (receipt.status === "reverted") {
      await store.setWithdrawal(withdrawal.withdrawalId, {
        status: "FAILED",
        nowMs,
        txHash: hash,
        blockNumber: receipt.blockNumber,
        lastError: `reverted on chain in block ${receipt.blockNumber}`,
        minedTxHash: hash,
      });
      this.#deps.logger.error({ withdrawalId: withdrawal.withdrawalId, txHash: hash }, "withdrawal reverted");
      return;
    }
    const result = await this.#deps.engine.submit({
      type: "CompleteWithdrawal",
      withdrawalId: withdrawal.withdrawalId,
    });
    if (!result.ok && result.rejection.code !== "WITHDRAWAL_NOT_APPROVED") {
      this.#deps.logger.error(
        { withdrawalId: withdrawal.withdrawalId, rejection: result.rejection },
        "withdrawal sender: the engine refused to complete a paid withdrawal",
      );
      return;
    }
    await store.setWithdrawal(withdrawal.withdrawalId, {
      status: "COMPLETED",
      nowMs: this.#deps.nowMs(),
      txHash: hash,
      blockNumber: receipt.blockNumber,
      minedTxHash: hash,
    });
    this.#deps.logger.info({ withdrawalId: withdrawal.withdrawalId, txHash: hash }, "withdrawal completed");
  }

  /**
   * The transaction's receipt, or undefined when the node says it has none (not mined). A lookup
   * that fails is thrown, ending the round: a node that could not answer has not said "not mined",
   * and taking it so would mark a paid withdrawal DROPPED, which the operator's retry pays again.
   */
  async #receiptOf(hash: string): Promise<TransactionReceipt | undefined> {
    try {
      return await this.#deps.client.getTransactionReceipt({ hash: hash as Hex });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    }
  }

  /** Its nonce is free: nothing of it is mined yet. Replace it when it waited too long, else keep it in the pool. */
  async #trackPending(withdrawal: ChainWithdrawal): Promise<void> {
    if (await this.#replaceIfDue(withdrawal)) return;
    const hash = withdrawal.txHash as Hex;
    const inPool = await this.#deps.client.getTransaction({ hash }).catch(() => undefined);
    if (inPool === undefined) await this.#broadcast(withdrawal);
  }

  /**
   * Replaces the withdrawal's transaction at its nonce with higher fees once the newest offer has
   * waited `replaceAfterMs` unmined. True when a replacement was made (or lost to a fresher write).
   */
  async #replaceIfDue(withdrawal: ChainWithdrawal): Promise<boolean> {
    const { client, account, store, fees: policy } = this.#deps;
    const nonce = withdrawal.nonce!;
    const offers = await this.#candidates(withdrawal);
    const newestSignedAtMs = offers.reduce(
      (newest, transaction) => Math.max(newest, transaction.signedAtMs),
      withdrawal.createdAtMs,
    );
    const nowMs = this.#deps.nowMs();
    if (nowMs - newestSignedAtMs < policy.replaceAfterMs) return false;
    if (offers.length >= transactionsPerNonceMax) {
      await this.#note(
        withdrawal,
        `not mined after ${offers.length} transactions at nonce ${nonce}; no more replacements`,
      );
      return false;
    }
    const highest = highestFees([feesOf(withdrawal.rawTx!), ...offers.map((offer) => feesOf(offer.rawTx))]);
    const fees = replacementFees(highest, await client.estimateFeesPerGas(), policy);
    if (fees === undefined) {
      await this.#note(
        withdrawal,
        `not mined; a replacement would offer more than the fee cap of ${policy.maxFeePerGasCap} wei per gas (PREDEX_WITHDRAWAL_MAX_FEE_GWEI)`,
      );
      return false;
    }
    const current = parseTransaction(withdrawal.rawTx as TransactionSerializedEIP1559);
    const rawTx = await account.signTransaction({
      type: "eip1559",
      chainId: this.#deps.chainId,
      nonce,
      to: current.to!,
      data: current.data!,
      value: current.value ?? 0n,
      gas: current.gas!,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const txHash = keccak256(rawTx);
    const saved = await store.saveReplacement({
      withdrawalId: withdrawal.withdrawalId,
      nonce,
      previousTxHash: withdrawal.txHash!,
      rawTx,
      txHash,
      nowMs,
    });
    // Not saved: the withdrawal changed since it was read; these bytes are thrown away, never broadcast.
    if (!saved) return true;
    this.#deps.logger.warn(
      {
        withdrawalId: withdrawal.withdrawalId,
        nonce,
        replaced: withdrawal.txHash,
        txHash,
        maxFeePerGas: String(fees.maxFeePerGas),
        maxPriorityFeePerGas: String(fees.maxPriorityFeePerGas),
      },
      "withdrawal sender: transaction not mined in time, replaced with higher fees at the same nonce",
    );
    await this.#broadcast((await store.withdrawal(withdrawal.withdrawalId))!);
    return true;
  }

  /** Tells the operator why a withdrawal in flight waits (written once, not every round). */
  async #note(withdrawal: ChainWithdrawal, message: string): Promise<void> {
    if (withdrawal.lastError === message) return;
    this.#deps.logger.warn(
      { withdrawalId: withdrawal.withdrawalId, reason: message },
      "withdrawal sender: waiting",
    );
    await this.#deps.store.setWithdrawal(withdrawal.withdrawalId, {
      status: withdrawal.status,
      nowMs: this.#deps.nowMs(),
      lastError: message,
    });
  }

  #wait(withdrawalId: number, reason: string): void {
    if (this.#waiting.get(withdrawalId) !== reason) {
      this.#deps.logger.warn({ withdrawalId, reason }, "withdrawal sender: waiting");
    }
    this.#waiting.set(withdrawalId, reason);
  }
}

function shortMessage(error: unknown): string {
  if (error !== null && typeof error === "object" && "shortMessage" in error) {
    return String((error as { shortMessage: unknown }).shortMessage);
  }
  return error instanceof Error ? error.message.split("\n")[0]! : String(error);
}
