// The deposit watcher against a real EVM node (the devnet): a user's address is the operator's
// xpub's child 0/N; a transfer to it shows as pending, then is credited once after the
// confirmations — also when predex restarts in between; a reorganisation before the confirmations
// credits nothing wrong; replays and several transfers in one transaction credit nothing twice.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createWalletClient, encodeFunctionData, type Hex, http } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { type Devnet, devnetAccountKeys, startDevnet, testUsdtAbi } from "../../src/chain/devnet/devnet.js";
import type { PredexClient } from "../../src/sdk/client.js";
import { waitForValue } from "../support/wait-until.js";
import {
  type ChainPlatform,
  chainWait,
  sendUsdt,
  settle,
  startChainPlatform,
  testConfirmations,
  testMnemonic,
  usdtUnitsOf,
} from "./fixtures.js";

let devnet: Devnet;
let chain: ChainPlatform;

before(async () => {
  devnet = await startDevnet({ intervalMiningMs: 0 });
  chain = await startChainPlatform(devnet);
});
after(async () => {
  await chain?.close();
  await devnet?.stop();
});

async function usdtAvailable(client: PredexClient): Promise<string> {
  const assets = await client.getAssets();
  return assets.find((asset) => asset.coinId === "2")?.available ?? "0";
}

async function historyRecord(client: PredexClient, txHash: string, status: string) {
  const history = await client.getDepositHistory({ pageSize: 100 });
  return history.records.find((record) => record.txHash === txHash && record.status === status);
}

describe("deposit addresses", () => {
  it("are the operator's xpub's child 0/N, and the operator's key moves what arrives there", async () => {
    const { client, userId } = await chain.user("xpub-owner");
    const { address } = await client.getDepositAddress();
    const operatorKey = mnemonicToAccount(testMnemonic, { addressIndex: userId });
    assert.equal(address, operatorKey.address);
    // The key controls it: fund it with gas and move the deposited tokens out with that key.
    await sendUsdt(devnet, devnet.fundedKey, address, 2_000_000n);
    const funder = createWalletClient({
      account: mnemonicToAccount("test test test test test test test test test test test junk"),
      chain: devnet.chain,
      transport: http(devnet.rpcUrl),
    });
    await funder.sendTransaction({ to: address as Hex, value: 10n ** 17n });
    const sweeper = createWalletClient({
      account: operatorKey,
      chain: devnet.chain,
      transport: http(devnet.rpcUrl),
    });
    const sweep = await sweeper.writeContract({
      address: devnet.usdtContract,
      abi: testUsdtAbi,
      functionName: "transfer",
      args: [funder.account.address, 2_000_000n],
    });
    await devnet.publicClient.waitForTransactionReceipt({ hash: sweep });
    assert.equal(await usdtUnitsOf(devnet, address), 0n);
  });
});

describe("the deposit watcher", () => {
  it("shows a transfer as pending, then credits it once after the confirmations, 6 decimals exact", async () => {
    const { client } = await chain.user("pending-then-credited");
    const { address } = await client.getDepositAddress();
    const txHash = await sendUsdt(devnet, devnet.fundedKey, address, 25_123_456n); // 25.123456 USDT
    const pending = await waitForValue(() => historyRecord(client, txHash, "PENDING"), {
      ...chainWait,
      what: "the pending deposit",
    });
    assert.equal(pending.amount, "25.123456");
    assert.equal(pending.confirmationsRequired, testConfirmations);
    assert.equal(pending.logIndex, 0);
    assert.equal(await usdtAvailable(client), "0");

    await devnet.mine(testConfirmations - 2);
    await settle();
    assert.ok(await historyRecord(client, txHash, "PENDING"), "one block short: still pending");
    assert.equal(await usdtAvailable(client), "0");

    await devnet.mine(1);
    const credited = await waitForValue(() => historyRecord(client, txHash, "CREDITED"), {
      ...chainWait,
      what: "the credit",
    });
    assert.equal(credited.amount, "25.123456");
    assert.equal(credited.logIndex, 0);
    assert.equal(await usdtAvailable(client), "25.123456");

    // More blocks and rounds: nothing more.
    await devnet.mine(5);
    await settle();
    const history = await client.getDepositHistory();
    assert.equal(history.count, 1);
    assert.equal(await usdtAvailable(client), "25.123456");
    const ledger = await client.getAccountHistory({ type: "DEPOSIT" });
    assert.deepEqual(
      ledger.records.map((entry) => [entry.amount, entry.refId]),
      [["25.123456", `${txHash}:0`]],
    );
  });

  it("credits a transfer seen before a restart once, after the restart, from its saved cursor", async () => {
    const first = await startChainPlatform(devnet);
    const { client, userId } = await first.user("across-restart");
    const { address } = await client.getDepositAddress();
    const txHash = await sendUsdt(devnet, devnet.fundedKey, address, 40_000_000n);
    await waitForValue(() => historyRecord(client, txHash, "PENDING"), {
      ...chainWait,
      what: "the pending deposit",
    });
    const dataDir = first.dataDir;
    await first.close({ keepData: true });

    // While predex is down the chain moves on, well past the confirmations.
    await devnet.mine(testConfirmations + 20);
    const second = await startChainPlatform(devnet, { dataDir, partner: first.partner });
    try {
      const again = await second.user("across-restart");
      assert.equal(again.userId, userId);
      await waitForValue(() => historyRecord(again.client, txHash, "CREDITED"), {
        ...chainWait,
        what: "the credit after the restart",
      });
      await devnet.mine(3);
      await settle();
      assert.equal(await usdtAvailable(again.client), "40");
      assert.equal((await again.client.getDepositHistory()).count, 1);
      const state = await second.operator.chainState();
      assert.equal(state.cursor, state.head);
    } finally {
      await second.close();
    }
  });

  it("credits nothing wrong when a reorganisation before the confirmations moves or removes a transfer", async () => {
    const { client } = await chain.user("reorganised");
    const { address } = await client.getDepositAddress();
    const snapshot = await devnet.rpc<Hex>("evm_snapshot");
    // Two transfers on a branch that will be abandoned.
    const funded = createWalletClient({
      account: privateKeyToAccount(devnet.fundedKey),
      chain: devnet.chain,
      transport: http(devnet.rpcUrl),
    });
    const raw = await funded.signTransaction(
      await funded.prepareTransactionRequest({
        to: devnet.usdtContract,
        data: encodeFunctionData({
          abi: testUsdtAbi,
          functionName: "transfer",
          args: [address as Hex, 7_000_000n],
        }),
      }),
    );
    const moved = await funded.sendRawTransaction({ serializedTransaction: raw });
    await devnet.publicClient.waitForTransactionReceipt({ hash: moved, pollingInterval: 20 });
    const removed = await sendUsdt(devnet, devnet.fundedKey, address, 900_000_000n);
    await waitForValue(() => historyRecord(client, removed, "PENDING"), {
      ...chainWait,
      what: "both pending",
    });
    assert.ok(await historyRecord(client, moved, "PENDING"));

    // The reorganisation: back to before both, a different block at their heights, and only the
    // first transaction comes back (in another block).
    assert.equal(await devnet.rpc("evm_revert", [snapshot]), true);
    await devnet.mine(1);
    await devnet.rpc("eth_sendRawTransaction", [raw]);
    await devnet.mine(testConfirmations + 2);

    await waitForValue(() => historyRecord(client, moved, "CREDITED"), {
      ...chainWait,
      what: "the moved transfer's credit",
    });
    await settle();
    assert.equal(await usdtAvailable(client), "7");
    assert.equal(await historyRecord(client, removed, "PENDING"), undefined);
    assert.equal(await historyRecord(client, removed, "CREDITED"), undefined);
    const dropped = await chain.operator.chainDeposits({ status: "DROPPED" });
    assert.ok(dropped.records.some((record) => record.txHash === removed));
    const credited = await chain.operator.chainDeposits({ status: "CREDITED" });
    const movedRecord = credited.records.find((record) => record.txHash === moved);
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: moved });
    assert.equal(movedRecord?.blockHash, receipt.blockHash);
  });

  it("credits each transfer of a transaction once, and nothing twice when the chain is read again", async () => {
    const { client, userId } = await chain.user("replayed");
    const { address } = await client.getDepositAddress();
    const other = await chain.user("replayed-other");
    const otherAddress = (await other.client.getDepositAddress()).address;
    const sender = createWalletClient({
      account: mnemonicToAccount("test test test test test test test test test test test junk"),
      chain: devnet.chain,
      transport: http(devnet.rpcUrl),
    });
    // One transaction, three transfers: two to the same user (two deposits), one to another user.
    const txHash = await sender.writeContract({
      address: devnet.usdtContract,
      abi: testUsdtAbi,
      functionName: "transferMany",
      args: [
        [address as Hex, otherAddress as Hex, address as Hex],
        [1_500_000n, 3_000_000n, 2_250_000n],
      ],
    });
    await devnet.publicClient.waitForTransactionReceipt({ hash: txHash });
    await devnet.mine(testConfirmations);
    await waitForValue(async () => ((await usdtAvailable(client)) === "3.75" ? true : undefined), {
      ...chainWait,
      what: "both credits",
    });
    await waitForValue(async () => ((await usdtAvailable(other.client)) === "3" ? true : undefined), {
      ...chainWait,
      what: "the other's",
    });

    // Replays: the watcher reads every block again from the start; a crash between crediting and
    // marking is simulated by marking a credited deposit pending again.
    const wallet = chain.platform.chainWallet!;
    await wallet.store.setCursor("deposits", 0n, Date.now());
    await wallet.store.setDepositStatus(txHash.toLowerCase(), 0, "PENDING", Date.now());
    await devnet.mine(1);
    await waitForValue(
      async () =>
        (await wallet.store.deposit(txHash.toLowerCase(), 0))?.status === "CREDITED" ? true : undefined,
      { ...chainWait, what: "the replayed deposit marked credited" },
    );
    await settle();
    // The operator's own credit of the same key is the same deposit, not another.
    const manual = await chain.operator.deposit({
      userId,
      amount: "1.5",
      txHash: `${txHash.toLowerCase()}:0`,
    });
    assert.equal(manual.amount, "1.5");
    assert.equal(await usdtAvailable(client), "3.75");
    assert.equal(await usdtAvailable(other.client), "3");
    const history = await client.getDepositHistory();
    assert.deepEqual(
      history.records.map((record) => [record.txHash, record.logIndex, record.amount]).sort(),
      [
        [txHash, 0, "1.5"],
        [txHash, 2, "2.25"],
      ],
    );
  });

  it("shows a transfer under the minimum deposit and does not credit it", async () => {
    const { client } = await chain.user("dust");
    const { address } = await client.getDepositAddress();
    const txHash = await sendUsdt(devnet, devnetAccountKeys[0]!, address, 999_999n);
    await devnet.mine(testConfirmations);
    const below = await waitForValue(() => historyRecord(client, txHash, "BELOW_MINIMUM"), {
      ...chainWait,
      what: "the dust record",
    });
    assert.equal(below.amount, "0.999999");
    assert.equal(await usdtAvailable(client), "0");
  });
});
