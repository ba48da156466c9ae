// A withdrawal whose transaction offers too low a fee to be mined (on the devnet: the next blocks'
// base fee pinned above its maxFeePerGas, automine off) is replaced after the configured wait at
// the SAME nonce with both fees raised by the bump; the replacement mines, the user is paid exactly
// once, the withdrawal is completed once with the replacement's hash, and every transaction signed
// for it is recorded: the mined one MINED, the others DEAD. When an earlier one is mined instead
// (while predex was down), it completes the withdrawal after the restart. A replacement that would
// pass the configured fee cap is not made: the transaction waits, the operator sees why, and it
// mines when the base fee falls again.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Hex, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type Devnet, devnetAccountKeys, startDevnet } from "../../src/chain/devnet/devnet.js";
import type { AdminWithdrawal } from "../../src/sdk/admin-client.js";
import type { PredexClient } from "../../src/sdk/client.js";
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

const gwei = 1_000_000_000n;
const hotWalletKey = devnetAccountKeys[4]!;
const hotWallet = privateKeyToAccount(hotWalletKey).address;
const replaceAfterMs = 400;
const bumpPercent = 20;
let devnet: Devnet;
let keyDir: string;
let keyFile: string;

before(async () => {
  devnet = await startDevnet({ intervalMiningMs: 0 });
  keyDir = mkdtempSync(join(tmpdir(), "predex-hot-wallet-"));
  keyFile = join(keyDir, "hot-wallet.key");
  writeFileSync(keyFile, `${hotWalletKey}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  await sendUsdt(devnet, devnet.fundedKey, hotWallet, 10_000_000_000n); // 10,000 USDT
});
after(async () => {
  await devnet?.stop();
  if (keyDir !== undefined) rmSync(keyDir, { recursive: true, force: true });
});

function startPlatform(maxFeeGwei: string) {
  return startChainPlatform(devnet, {
    env: {
      PREDEX_WITHDRAWAL_KEY_FILE: keyFile,
      PREDEX_WITHDRAWAL_REPLACE_AFTER_MS: String(replaceAfterMs),
      PREDEX_WITHDRAWAL_FEE_BUMP_PERCENT: String(bumpPercent),
      PREDEX_WITHDRAWAL_MAX_FEE_GWEI: maxFeeGwei,
    },
  });
}

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

async function adminView(platform: ChainPlatform, withdrawId: string): Promise<AdminWithdrawal | undefined> {
  const list = await platform.operator.listWithdrawals({ pageSize: 100 });
  return list.records.find((record) => record.withdrawId === withdrawId);
}

/** Mines one block whose base fee is `baseFee` (the blocks after it start from there). */
async function mineWithBaseFee(baseFee: bigint): Promise<void> {
  await devnet.rpc("hardhat_setNextBlockBaseFeePerGas", [toHex(baseFee)]);
  await devnet.rpc("evm_mine");
}

const receiptOf = (hash: string) =>
  devnet.publicClient.getTransactionReceipt({ hash: hash as Hex }).catch(() => undefined);

describe("a withdrawal stuck with too low a fee", () => {
  it("is replaced at the same nonce with higher fees; the replacement mines and pays once", async () => {
    const chain = await startPlatform("1000");
    await devnet.rpc("evm_setAutomine", [false]);
    try {
      const { client } = await fundedUser(chain, "stuck", "30");
      const destination = privateKeyToAccount(generatePrivateKey()).address;
      const hotUsdtBefore = await usdtUnitsOf(devnet, hotWallet);
      const nonceBefore = await devnet.publicClient.getTransactionCount({ address: hotWallet });
      const requested = await client.applyWithdrawal({ amount: 12, address: destination });
      await chain.operator.approveWithdrawal(requested.withdrawId);
      const sent = await waitForValue(
        async () => {
          const view = await adminView(chain, requested.withdrawId);
          return view?.chain?.status === "SENT" ? view : undefined;
        },
        { ...chainWait, what: "the first transaction sent" },
      );
      const [first] = sent.chain!.transactions;
      assert.equal(sent.chain!.transactions.length, 1);
      assert.deepEqual(
        [first!.txHash, first!.nonce, first!.state],
        [sent.chain!.txHash, nonceBefore, "PENDING"],
      );

      // Every block from now on asks more than the first transaction offers: it cannot be mined.
      const pinnedBaseFee = BigInt(first!.maxFeePerGas) * 2n;
      await mineWithBaseFee(pinnedBaseFee);
      assert.equal(await receiptOf(first!.txHash), undefined, "too low a fee to be mined");

      // After the wait, replacements at the same nonce, until one offers what the blocks ask.
      const replaced = await waitForValue(
        async () => {
          const view = await adminView(chain, requested.withdrawId);
          const offers = view?.chain?.transactions ?? [];
          const newest = offers[offers.length - 1];
          return view?.chain?.status === "SENT" &&
            newest !== undefined &&
            BigInt(newest.maxFeePerGas) > pinnedBaseFee
            ? view
            : undefined;
        },
        { ...chainWait, what: "a replacement that offers enough" },
      );
      const offers = replaced.chain!.transactions;
      assert.ok(offers.length >= 2);
      for (const [index, offer] of offers.entries()) {
        assert.equal(offer.nonce, nonceBefore, "every replacement at the same nonce");
        if (index === 0) continue;
        const previous = offers[index - 1]!;
        for (const field of ["maxFeePerGas", "maxPriorityFeePerGas"] as const) {
          assert.ok(
            BigInt(offer[field]) * 100n >= BigInt(previous[field]) * BigInt(100 + bumpPercent),
            `${field} raised by at least ${bumpPercent}%: ${previous[field]} → ${offer[field]}`,
          );
        }
        assert.ok(BigInt(offer.maxFeePerGas) <= 1000n * gwei, "within the cap");
      }
      assert.equal(replaced.chain!.txHash, offers[offers.length - 1]!.txHash);

      await devnet.mine(testConfirmations);
      const completed = await waitForValue(
        async () => {
          const view = await adminView(chain, requested.withdrawId);
          return view?.chain?.status === "COMPLETED" ? view : undefined;
        },
        { ...chainWait, what: "completion" },
      );
      const paidBy = completed.chain!.txHash!;
      assert.equal(completed.status, "COMPLETED");
      assert.equal(completed.txHash, paidBy);
      assert.notEqual(paidBy, first!.txHash, "a replacement paid, not the first transaction");
      assert.equal((await receiptOf(paidBy))?.status, "success");
      const states = completed.chain!.transactions.map((offer) => [offer.txHash, offer.state]);
      assert.deepEqual(
        states,
        completed.chain!.transactions.map((offer) => [
          offer.txHash,
          offer.txHash === paidBy ? "MINED" : "DEAD",
        ]),
      );
      for (const offer of completed.chain!.transactions)
        if (offer.txHash !== paidBy) assert.equal(await receiptOf(offer.txHash), undefined, offer.txHash);

      // Paid exactly once: one transfer, one nonce used, one completion in the ledger.
      assert.equal(await usdtUnitsOf(devnet, destination), 12_000_000n);
      assert.equal(hotUsdtBefore - (await usdtUnitsOf(devnet, hotWallet)), 12_000_000n);
      assert.equal(await devnet.publicClient.getTransactionCount({ address: hotWallet }), nonceBefore + 1);
      assert.deepEqual(await usdtOf(client), { available: "17", frozen: "0" });
      const history = await client.getWithdrawHistory();
      assert.deepEqual(
        history.records.map((record) => [record.withdrawId, record.status, record.txHash]),
        [[requested.withdrawId, "COMPLETED", paidBy]],
      );
      const paid = await client.getAccountHistory({ type: "WITHDRAWAL" });
      assert.deepEqual(
        paid.records.map((entry) => entry.refId),
        [requested.withdrawId],
      );

      // Later blocks change nothing.
      await devnet.mine(3);
      await settle();
      assert.equal(await usdtUnitsOf(devnet, destination), 12_000_000n);
      assert.equal(await devnet.publicClient.getTransactionCount({ address: hotWallet }), nonceBefore + 1);
      assert.equal((await client.getAccountHistory({ type: "WITHDRAWAL" })).records.length, 1);
      assert.equal((await adminView(chain, requested.withdrawId))?.chain?.txHash, paidBy);
    } finally {
      await devnet.rpc("evm_setAutomine", [true]);
      await chain.close();
    }
  });

  it("completes once with whichever of its transactions is mined, also an earlier one, across a restart", async () => {
    let chain = await startPlatform("1000");
    const dataDir = chain.dataDir;
    await devnet.rpc("evm_setAutomine", [false]);
    try {
      const { client } = await fundedUser(chain, "earlier", "30");
      const destination = privateKeyToAccount(generatePrivateKey()).address;
      const nonceBefore = await devnet.publicClient.getTransactionCount({ address: hotWallet });
      const requested = await client.applyWithdrawal({ amount: 12, address: destination });
      await chain.operator.approveWithdrawal(requested.withdrawId);
      const sent = await waitForValue(
        async () => {
          const view = await adminView(chain, requested.withdrawId);
          return view?.chain?.status === "SENT" ? view : undefined;
        },
        { ...chainWait, what: "the first transaction sent" },
      );
      const first = sent.chain!.transactions[0]!;
      await mineWithBaseFee(BigInt(first.maxFeePerGas) * 2n);
      await waitForValue(
        async () => {
          const view = await adminView(chain, requested.withdrawId);
          return view?.chain?.status === "SENT" && view.chain.transactions.length >= 2 ? view : undefined;
        },
        { ...chainWait, what: "a replacement sent" },
      );
      const saved = await chain.platform.deps.chainWallet!.store.withdrawalTransactions(
        Number(requested.withdrawId),
      );
      // predex stops (a crash or a deploy); meanwhile the FIRST transaction, not its replacement, is
      // mined: the replacement leaves the pool, the first is sent again by someone, the fee falls.
      await chain.close({ keepData: true });
      for (const offer of saved.slice(1)) await devnet.rpc("hardhat_dropTransaction", [offer.txHash]);
      await devnet.publicClient.sendRawTransaction({ serializedTransaction: saved[0]!.rawTx as Hex });
      await mineWithBaseFee(1n * gwei);
      assert.equal((await receiptOf(first.txHash))?.status, "success");
      await devnet.mine(testConfirmations);

      chain = await startChainPlatform(devnet, {
        dataDir,
        partner: chain.partner,
        env: {
          PREDEX_WITHDRAWAL_KEY_FILE: keyFile,
          PREDEX_WITHDRAWAL_REPLACE_AFTER_MS: String(replaceAfterMs),
          PREDEX_WITHDRAWAL_FEE_BUMP_PERCENT: String(bumpPercent),
          PREDEX_WITHDRAWAL_MAX_FEE_GWEI: "1000",
        },
      });
      const completed = await waitForValue(
        async () => {
          const view = await adminView(chain, requested.withdrawId);
          return view?.chain?.status === "COMPLETED" ? view : undefined;
        },
        { ...chainWait, what: "completion" },
      );
      assert.equal(completed.chain!.txHash, first.txHash);
      assert.equal(completed.txHash, first.txHash);
      assert.deepEqual(
        completed.chain!.transactions.map((offer) => offer.state),
        ["MINED", ...saved.slice(1).map(() => "DEAD")],
      );
      await devnet.mine(3);
      await settle();
      assert.equal(await usdtUnitsOf(devnet, destination), 12_000_000n);
      assert.equal(await devnet.publicClient.getTransactionCount({ address: hotWallet }), nonceBefore + 1);
      const { client: again } = await chain.user("earlier");
      assert.deepEqual(await usdtOf(again), { available: "17", frozen: "0" });
      assert.equal((await again.getAccountHistory({ type: "WITHDRAWAL" })).records.length, 1);
    } finally {
      await devnet.rpc("evm_setAutomine", [true]);
      await chain.close();
    }
  });

  it("is not replaced past the fee cap: it waits, says why, and mines when the base fee falls", async () => {
    await devnet.rpc("evm_setAutomine", [false]);
    // The latest block's base fee 10 gwei: the node's estimate is about 12 gwei plus the tip, under
    // the 14 gwei cap; a 20% raise of it is not.
    await mineWithBaseFee(10n * gwei);
    const chain = await startPlatform("14");
    try {
      const { client } = await fundedUser(chain, "capped", "30");
      const destination = privateKeyToAccount(generatePrivateKey()).address;
      const requested = await client.applyWithdrawal({ amount: 10, address: destination });
      await chain.operator.approveWithdrawal(requested.withdrawId);
      const sent = await waitForValue(
        async () => {
          const view = await adminView(chain, requested.withdrawId);
          return view?.chain?.status === "SENT" ? view : undefined;
        },
        { ...chainWait, what: "the transaction sent" },
      );
      const first = sent.chain!.transactions[0]!;
      assert.ok(BigInt(first.maxFeePerGas) <= 14n * gwei, first.maxFeePerGas);
      await mineWithBaseFee(20n * gwei);
      const waiting = await waitForValue(
        async () => {
          const view = await adminView(chain, requested.withdrawId);
          return /fee cap/.test(view?.chain?.error ?? "") ? view : undefined;
        },
        { ...chainWait, what: "the cap reported" },
      );
      assert.equal(waiting.chain!.status, "SENT");
      await settle(3 * replaceAfterMs);
      const still = (await adminView(chain, requested.withdrawId))!;
      assert.deepEqual(
        still.chain!.transactions.map((offer) => [offer.txHash, offer.state]),
        [[first.txHash, "PENDING"]],
        "no replacement above the cap",
      );
      assert.equal(await receiptOf(first.txHash), undefined);

      // The base fee falls: the first transaction is mined after all, and completes the withdrawal.
      await mineWithBaseFee(1n * gwei);
      await devnet.mine(testConfirmations);
      const completed = await waitForValue(
        async () => {
          const view = await adminView(chain, requested.withdrawId);
          return view?.chain?.status === "COMPLETED" ? view : undefined;
        },
        { ...chainWait, what: "completion" },
      );
      assert.equal(completed.chain!.txHash, first.txHash);
      assert.deepEqual(
        completed.chain!.transactions.map((offer) => offer.state),
        ["MINED"],
      );
      assert.equal(await usdtUnitsOf(devnet, destination), 10_000_000n);
      assert.deepEqual(await usdtOf(client), { available: "19", frozen: "0" });
    } finally {
      await devnet.rpc("evm_setAutomine", [true]);
      await chain.close();
    }
  });
});
