// The withdrawal sender's reading of the chain, on a node whose answers the test scripts (the
// devnet cannot fail on purpose): a withdrawal whose nonce is used is DROPPED only when the node
// says none of its transactions has a receipt. A receipt lookup that fails (the RPC node down, a
// timeout, a 5xx from its load balancer) says nothing: the round ends and the next one looks
// again. Marking a paid withdrawal DROPPED would hand it to the operator's retry, a second
// payment at a new nonce.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { keccak256, type TransactionReceipt, TransactionReceiptNotFoundError } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { WithdrawalSender, type WithdrawalSenderDeps } from "../../src/chain/withdrawal-sender.js";
import { createSqliteChainStore } from "../../src/store/sqlite/chain-store.js";
import { openDatabase } from "../../src/store/sqlite/database.js";

const token = "0x00000000000000000000000000000000000000aa";
const recipient = "0x00000000000000000000000000000000000000bb";

/** A node whose receipt answers the test sets: a receipt, "none" (not mined), or a failure. */
function scriptedNode() {
  const node = {
    head: 100n,
    minedNonce: 1,
    receipt: "none" as TransactionReceipt | "none" | Error,
    receiptLookups: 0,
    client: {
      getBlockNumber: async () => node.head,
      getTransactionCount: async () => node.minedNonce,
      getTransactionReceipt: async ({ hash }: { hash: `0x${string}` }) => {
        node.receiptLookups += 1;
        if (node.receipt instanceof Error) throw node.receipt;
        if (node.receipt === "none") throw new TransactionReceiptNotFoundError({ hash });
        return node.receipt;
      },
    },
  };
  return node;
}

async function senderWithOneSentWithdrawal(node: ReturnType<typeof scriptedNode>) {
  const store = createSqliteChainStore(openDatabase({ path: ":memory:" }));
  const account = privateKeyToAccount(generatePrivateKey());
  const rawTx = await account.signTransaction({
    type: "eip1559",
    chainId: 31337,
    nonce: 0,
    to: token,
    data: "0x",
    gas: 60_000n,
    maxFeePerGas: 10n,
    maxPriorityFeePerGas: 1n,
  });
  const txHash = keccak256(rawTx);
  assert.ok(
    await store.saveSigned({
      withdrawalId: 1,
      nonce: 0,
      fromAddress: account.address.toLowerCase(),
      toAddress: recipient,
      units: 12_000_000n,
      rawTx,
      txHash,
      nowMs: 1_000,
    }),
  );
  await store.setWithdrawal(1, { status: "SENT", nowMs: 1_000, broadcasted: true });
  const completions: number[] = [];
  const deps = {
    client: node.client,
    account,
    store,
    engine: {
      submit: async (command: { withdrawalId: number }) => {
        completions.push(command.withdrawalId);
        return { ok: true, sequence: 1n, nowMs: 1_000, events: [] };
      },
    },
    readModels: { withdrawals: async () => ({ records: [], total: 0 }) },
    token,
    decimals: 6,
    chainId: 31337,
    confirmations: 3,
    pollMs: 1_000,
    fees: { replaceAfterMs: 60_000, bumpPercent: 20, maxFeePerGasCap: 1_000_000_000_000n },
    nowMs: () => 2_000,
    logger: pino({ level: "silent" }),
  } as unknown as WithdrawalSenderDeps;
  return { sender: new WithdrawalSender(deps), store, txHash, completions };
}

describe("the withdrawal sender, when the withdrawal's nonce is used", () => {
  it("does not give a withdrawal up as DROPPED when its receipt could not be read, and completes it once it can", async () => {
    const node = scriptedNode();
    const { sender, store, txHash, completions } = await senderWithOneSentWithdrawal(node);
    node.receipt = new Error("HTTP request failed. Status: 503 (the RPC node's load balancer)");

    await assert.rejects(sender.poll(), /503/);
    assert.ok(node.receiptLookups > 0);
    assert.equal((await store.withdrawal(1))?.status, "SENT", "a failed lookup is no proof of anything");
    assert.deepEqual(
      (await store.withdrawalTransactions(1)).map((transaction) => transaction.state),
      ["PENDING"],
    );

    node.receipt = { status: "success", blockNumber: 90n, transactionHash: txHash } as TransactionReceipt;
    await sender.poll();
    const completed = await store.withdrawal(1);
    assert.equal(completed?.status, "COMPLETED");
    assert.equal(completed?.txHash, txHash);
    assert.deepEqual(completions, [1]);
  });

  it("gives it up as DROPPED when the node says none of its transactions was mined", async () => {
    const node = scriptedNode();
    const { sender, store, completions } = await senderWithOneSentWithdrawal(node);
    node.receipt = "none";
    await sender.poll();
    assert.equal((await store.withdrawal(1))?.status, "DROPPED");
    assert.deepEqual(
      (await store.withdrawalTransactions(1)).map((transaction) => transaction.state),
      ["DEAD"],
    );
    assert.deepEqual(completions, []);
  });
});
