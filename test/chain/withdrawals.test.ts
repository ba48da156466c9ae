// Withdrawals paid on a real EVM node (the devnet): an approved withdrawal arrives at its address
// as an ERC20 transfer of exactly its amount (6-decimal conversion exact, the fee kept by the
// platform), completed with its transaction hash after the confirmations; a transaction dropped
// from the node's pool is broadcast again, the same bytes, and pays once; one that would revert
// goes back to the operator, who rejects it; the operator cannot reject one in flight; an operator
// without a hot wallet exports unsigned transactions, signs them elsewhere and completes them.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createWalletClient, type Hex, http, parseTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type Devnet, devnetAccountKeys, startDevnet, testUsdtAbi } from "../../src/chain/devnet/devnet.js";
import type { PredexClient } from "../../src/sdk/client.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import { waitForValue } from "../support/wait-until.js";
import {
  type ChainPlatform,
  chainWait,
  sendUsdt,
  settle,
  startChainPlatform,
  testConfirmations,
  usdtUnitsOf,
} from "./fixtures.js";

const hotWalletKey = devnetAccountKeys[2]!;
const hotWallet = privateKeyToAccount(hotWalletKey).address;
let devnet: Devnet;
let chain: ChainPlatform;
let keyDir: string;

before(async () => {
  devnet = await startDevnet({ intervalMiningMs: 0 });
  keyDir = mkdtempSync(join(tmpdir(), "predex-hot-wallet-"));
  const keyFile = join(keyDir, "hot-wallet.key");
  writeFileSync(keyFile, `${hotWalletKey}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  await sendUsdt(devnet, devnet.fundedKey, hotWallet, 10_000_000_000n); // 10,000 USDT
  chain = await startChainPlatform(devnet, { env: { PREDEX_WITHDRAWAL_KEY_FILE: keyFile } });
});
after(async () => {
  await chain?.close();
  await devnet?.stop();
  if (keyDir !== undefined) rmSync(keyDir, { recursive: true, force: true });
});

async function fundedUser(platform: ChainPlatform, name: string, usdt: string) {
  const user = await platform.user(name);
  await platform.operator.deposit({
    userId: user.userId,
    amount: usdt,
    txHash: `0xfund-${name}-${process.pid}`,
  });
  return user;
}

async function usdtOf(client: PredexClient) {
  const asset = (await client.getAssets()).find((entry) => entry.coinId === "2");
  return { available: asset?.available, frozen: asset?.frozen };
}

function chainStatusOf(platform: ChainPlatform, withdrawId: string, status: string) {
  return async () => {
    const list = await platform.operator.listWithdrawals({ pageSize: 100 });
    const found = list.records.find((record) => record.withdrawId === withdrawId);
    return found?.chain?.status === status ? found : undefined;
  };
}

describe("withdrawals on chain", () => {
  it("arrive at the address with exactly the amount, the fee kept, completed with their hash", async () => {
    const { client } = await fundedUser(chain, "payee", "100");
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const hotBefore = await usdtUnitsOf(devnet, hotWallet);
    const requested = await client.applyWithdrawal({ amount: 40.123456, address: destination });
    assert.deepEqual(await usdtOf(client), { available: "58.876544", frozen: "41.123456" });
    await chain.operator.approveWithdrawal(requested.withdrawId);

    const sent = await waitForValue(chainStatusOf(chain, requested.withdrawId, "SENT"), {
      ...chainWait,
      what: "the transaction sent",
    });
    assert.equal(sent.status, "APPROVED");
    const txHash = sent.chain!.txHash as Hex;
    await devnet.mine(testConfirmations - 1);
    const completed = await waitForValue(chainStatusOf(chain, requested.withdrawId, "COMPLETED"), {
      ...chainWait,
      what: "completion",
    });
    assert.equal(completed.status, "COMPLETED");
    assert.equal(completed.txHash, txHash);

    assert.equal(await usdtUnitsOf(devnet, destination), 40_123_456n);
    assert.equal(hotBefore - (await usdtUnitsOf(devnet, hotWallet)), 40_123_456n);
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: txHash });
    assert.equal(receipt.status, "success");
    assert.equal(receipt.to?.toLowerCase(), devnet.usdtContract.toLowerCase());
    assert.equal(receipt.type, "eip1559");
    // The user paid amount + fee; the chain carried only the amount.
    assert.deepEqual(await usdtOf(client), { available: "58.876544", frozen: "0" });
    const history = await client.getWithdrawHistory();
    assert.equal(history.records[0]?.status, "COMPLETED");
    assert.equal(history.records[0]?.txHash, txHash);
    await devnet.mine(3);
    await settle();
    assert.equal(await usdtUnitsOf(devnet, destination), 40_123_456n);
  });

  it("refuse an amount the token cannot carry (more than 6 decimals)", async () => {
    const { client } = await fundedUser(chain, "too-precise", "50");
    await assert.rejects(
      client.applyWithdrawal({ amount: 10.1234567, address: hotWallet }),
      (error: unknown) =>
        error instanceof PredexApiError &&
        error.status === 400 &&
        /more than 6 decimal places/.test(error.message),
    );
  });

  it("broadcast the same transaction again when the node drops it, and pay once", async () => {
    const { client } = await fundedUser(chain, "dropped", "30");
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    await devnet.rpc("evm_setAutomine", [false]);
    try {
      const requested = await client.applyWithdrawal({ amount: 12, address: destination });
      await chain.operator.approveWithdrawal(requested.withdrawId);
      const sent = await waitForValue(chainStatusOf(chain, requested.withdrawId, "SENT"), {
        ...chainWait,
        what: "the transaction sent",
      });
      const txHash = sent.chain!.txHash as Hex;
      // While it is in flight the operator cannot reject it (that would refund and pay).
      await assert.rejects(chain.operator.rejectWithdrawal(requested.withdrawId), /is SENT/);
      assert.equal(await devnet.rpc("hardhat_dropTransaction", [txHash]), true);
      await waitForValue(
        async () => {
          const list = await chain.operator.listWithdrawals({ pageSize: 100 });
          const found = list.records.find((record) => record.withdrawId === requested.withdrawId);
          return (found?.chain?.broadcasts ?? 0) >= 2 ? found : undefined;
        },
        { ...chainWait, what: "the second broadcast" },
      );
      const pooled = await devnet.publicClient.getTransaction({ hash: txHash });
      assert.equal(pooled.hash, txHash);
      await devnet.mine(testConfirmations);
      const completed = await waitForValue(chainStatusOf(chain, requested.withdrawId, "COMPLETED"), {
        ...chainWait,
        what: "completion",
      });
      assert.equal(completed.chain?.txHash, txHash);
    } finally {
      await devnet.rpc("evm_setAutomine", [true]);
    }
    assert.equal(await usdtUnitsOf(devnet, destination), 12_000_000n);
    assert.deepEqual(await usdtOf(client), { available: "17", frozen: "0" });
  });

  it("go back to the operator when the transfer would revert; the operator rejects, nothing is paid", async () => {
    const { client } = await fundedUser(chain, "blocked", "30");
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const owner = createWalletClient({
      account: privateKeyToAccount(devnet.fundedKey),
      chain: devnet.chain,
      transport: http(devnet.rpcUrl),
    });
    const blocked = await owner.writeContract({
      address: devnet.usdtContract,
      abi: testUsdtAbi,
      functionName: "setBlocked",
      args: [destination, true],
    });
    await devnet.publicClient.waitForTransactionReceipt({ hash: blocked });
    const requested = await client.applyWithdrawal({ amount: 15, address: destination });
    await chain.operator.approveWithdrawal(requested.withdrawId);
    const failed = await waitForValue(chainStatusOf(chain, requested.withdrawId, "FAILED"), {
      ...chainWait,
      what: "the failure",
    });
    assert.match(failed.chain?.error ?? "", /would revert/);
    assert.equal(failed.status, "APPROVED");
    assert.deepEqual(await usdtOf(client), { available: "14", frozen: "16" });
    const rejected = await chain.operator.rejectWithdrawal(requested.withdrawId);
    assert.equal(rejected.status, "REJECTED");
    assert.deepEqual(await usdtOf(client), { available: "30", frozen: "0" });
    await devnet.mine(3);
    await settle();
    assert.equal(await usdtUnitsOf(devnet, destination), 0n);
  });

  it("are sent again as a new transaction when the operator retries a failed one", async () => {
    const { client } = await fundedUser(chain, "retried", "30");
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const owner = createWalletClient({
      account: privateKeyToAccount(devnet.fundedKey),
      chain: devnet.chain,
      transport: http(devnet.rpcUrl),
    });
    const setBlocked = async (blocked: boolean) => {
      const hash = await owner.writeContract({
        address: devnet.usdtContract,
        abi: testUsdtAbi,
        functionName: "setBlocked",
        args: [destination, blocked],
      });
      await devnet.publicClient.waitForTransactionReceipt({ hash });
    };
    await setBlocked(true);
    const requested = await client.applyWithdrawal({ amount: 11, address: destination });
    await chain.operator.approveWithdrawal(requested.withdrawId);
    await waitForValue(chainStatusOf(chain, requested.withdrawId, "FAILED"), {
      ...chainWait,
      what: "the failure",
    });
    // Retry is only for FAILED or DROPPED; the address unblocked, the retry pays it once.
    await setBlocked(false);
    const retried = await chain.operator.retryWithdrawal(requested.withdrawId);
    assert.equal(retried.status, "APPROVED");
    await waitForValue(chainStatusOf(chain, requested.withdrawId, "SENT"), {
      ...chainWait,
      what: "the new transaction",
    });
    await devnet.mine(testConfirmations);
    await waitForValue(chainStatusOf(chain, requested.withdrawId, "COMPLETED"), {
      ...chainWait,
      what: "completion",
    });
    await assert.rejects(chain.operator.retryWithdrawal(requested.withdrawId), /not approved/i);
    assert.equal(await usdtUnitsOf(devnet, destination), 11_000_000n);
    assert.deepEqual(await usdtOf(client), { available: "18", frozen: "0" });
  });
});

describe("withdrawals signed elsewhere", () => {
  it("are exported unsigned, signed by the operator's own key, broadcast and completed with the hash", async () => {
    const exportOnly = await startChainPlatform(devnet);
    try {
      const { client } = await fundedUser(exportOnly, "exported", "80");
      const destination = privateKeyToAccount(generatePrivateKey()).address;
      const requested = await client.applyWithdrawal({ amount: 33.5, address: destination });
      await exportOnly.operator.approveWithdrawal(requested.withdrawId);
      await settle();
      const offline = privateKeyToAccount(devnetAccountKeys[3]!);
      await sendUsdt(devnet, devnet.fundedKey, offline.address, 100_000_000n);
      const { records } = await exportOnly.operator.exportWithdrawals(offline.address);
      const unsigned = records.find((record) => record.withdrawId === requested.withdrawId);
      assert.ok(unsigned?.unsignedTransaction, "a serialized unsigned transaction");
      assert.equal(unsigned.tokenUnits, "33500000");
      assert.equal(unsigned.to.toLowerCase(), devnet.usdtContract.toLowerCase());
      // Signed "elsewhere": the operator's own key, from the serialized bytes alone.
      const signed = await offline.signTransaction(parseTransaction(unsigned.unsignedTransaction as Hex));
      const txHash = await devnet.publicClient.sendRawTransaction({ serializedTransaction: signed });
      await devnet.publicClient.waitForTransactionReceipt({ hash: txHash });
      // The hash is checked on chain: buried by the confirmations, and paying this withdrawal.
      await assert.rejects(
        exportOnly.operator.completeWithdrawal(requested.withdrawId, txHash),
        /has 1 of 3 confirmations/,
      );
      await devnet.mine(testConfirmations - 1);
      const unrelated = await sendUsdt(devnet, devnet.fundedKey, destination, 1n);
      await devnet.mine(testConfirmations);
      await assert.rejects(
        exportOnly.operator.completeWithdrawal(requested.withdrawId, unrelated),
        /does not transfer 33500000 token units/,
      );
      const completed = await exportOnly.operator.completeWithdrawal(requested.withdrawId, txHash);
      assert.equal(completed.status, "COMPLETED");
      assert.equal(completed.txHash, txHash);
      assert.equal(await usdtUnitsOf(devnet, destination), 33_500_001n);
      assert.deepEqual(await usdtOf(client), { available: "45.5", frozen: "0" });
      assert.equal((await exportOnly.operator.exportWithdrawals()).records.length, 0);
      // With a hot wallet, there is nothing to export.
      await assert.rejects(chain.operator.exportWithdrawals(), /hot wallet/);
    } finally {
      await exportOnly.close();
    }
  });
});
