// The ChainStore contract (src/store/chain-store.ts), run on SQLite and PostgreSQL
// (test/store/chain-stores.test.ts): the cursor; a deposit's life (seen, moved by a reorganisation,
// dropped and seen again, credited and kept); the lists and their order; a withdrawal signed at
// most once, held by the operator only when nothing is in flight, released, and its history.

import assert from "node:assert/strict";
import { afterEach, it } from "node:test";
import type { ChainDeposit, ChainStore } from "../../../src/store/chain-store.js";
import type { PortHarness, PortInstance } from "../../support/port-harness.js";

const nowMs = 1_800_000_000_000;
/** Past 2^64: an 18-decimal token's units do not fit an int8. */
const hugeUnits = 123_456_789_012_345_678_901_234_567n;

function seen(txHash: string, logIndex: number, blockNumber: bigint, overrides: Partial<ChainDeposit> = {}) {
  return {
    txHash,
    logIndex,
    userId: 7,
    address: "0xabc",
    units: hugeUnits,
    amountAtoms: 5_000_000_000n,
    dustUnits: 12_345n,
    blockNumber,
    blockHash: `0xblock${blockNumber}`,
    seenAtMs: nowMs + Number(blockNumber),
    ...overrides,
  };
}

function signed(withdrawalId: number, nonce: number) {
  return {
    withdrawalId,
    nonce,
    fromAddress: "0xhot",
    toAddress: "0xto",
    units: hugeUnits,
    rawTx: `0xraw${withdrawalId}`,
    txHash: `0xtx${withdrawalId}`,
    nowMs,
  };
}

export function describeChainStoreContract(harness: PortHarness<ChainStore>): void {
  let open: PortInstance<ChainStore> | undefined;
  const start = async () => {
    open = await harness.open();
    return open;
  };
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });

  it("keeps the watcher's cursor by name", async () => {
    const { store } = await start();
    assert.equal(await store.cursor("deposits"), undefined);
    await store.setCursor("deposits", 10n, nowMs);
    await store.setCursor("deposits", 2n ** 40n, nowMs + 1);
    assert.equal(await store.cursor("deposits"), 2n ** 40n);
    assert.equal(await store.cursor("other"), undefined);
  });

  it("records a deposit PENDING, moves it with a reorganisation, and keeps a credited one", async () => {
    const { store } = await start();
    const first = await store.recordSeen(seen("0xt1", 0, 100n));
    assert.deepEqual(first, { ...seen("0xt1", 0, 100n), status: "PENDING", updatedAtMs: nowMs + 100 });
    assert.deepEqual(await store.deposit("0xt1", 0), first);
    assert.equal(await store.deposit("0xt1", 1), undefined);
    // Seen again in the same block: nothing changes.
    assert.deepEqual(await store.recordSeen(seen("0xt1", 0, 100n, { seenAtMs: nowMs + 500 })), first);
    // A reorganisation put it in another block: it takes that block, PENDING again.
    const moved = await store.recordSeen(
      seen("0xt1", 0, 101n, { blockHash: "0xother", seenAtMs: nowMs + 600 }),
    );
    assert.equal(moved.blockNumber, 101n);
    assert.equal(moved.blockHash, "0xother");
    assert.equal(moved.status, "PENDING");
    assert.equal(moved.updatedAtMs, nowMs + 600);
    assert.equal(moved.seenAtMs, nowMs + 100);
    // Dropped, then seen again in the same block: PENDING again.
    await store.setDepositStatus("0xt1", 0, "DROPPED", nowMs + 700);
    assert.equal((await store.deposit("0xt1", 0))?.status, "DROPPED");
    const back = await store.recordSeen(
      seen("0xt1", 0, 101n, { blockHash: "0xother", seenAtMs: nowMs + 800 }),
    );
    assert.equal(back.status, "PENDING");
    // Credited: kept as it is, whatever block it is seen in.
    await store.setDepositStatus("0xt1", 0, "CREDITED", nowMs + 900);
    const kept = await store.recordSeen(
      seen("0xt1", 0, 105n, { blockHash: "0xthird", seenAtMs: nowMs + 950 }),
    );
    assert.equal(kept.status, "CREDITED");
    assert.equal(kept.blockNumber, 101n);
    assert.equal(kept.updatedAtMs, nowMs + 900);
    assert.equal(kept.units, hugeUnits);
  });

  it("lists pending deposits oldest block first, a user's uncredited newest first, and all by status", async () => {
    const { store } = await start();
    await store.recordSeen(seen("0xc", 0, 30n));
    await store.recordSeen(seen("0xa", 1, 10n));
    await store.recordSeen(seen("0xa", 0, 10n));
    await store.recordSeen(seen("0xb", 0, 20n, { userId: 8 }));
    await store.recordSeen(seen("0xd", 0, 40n));
    await store.setDepositStatus("0xc", 0, "BELOW_MINIMUM", nowMs);
    await store.setDepositStatus("0xd", 0, "CREDITED", nowMs);
    const keys = (deposits: ChainDeposit[]) => deposits.map((one) => `${one.txHash}:${one.logIndex}`);
    assert.deepEqual(keys(await store.pendingDeposits()), ["0xa:0", "0xa:1", "0xb:0"]);
    const mine = await store.uncreditedOf(7, 10);
    assert.equal(mine.total, 3);
    assert.deepEqual(keys(mine.records), ["0xc:0", "0xa:0", "0xa:1"]);
    const firstOnly = await store.uncreditedOf(7, 1);
    assert.equal(firstOnly.total, 3);
    assert.deepEqual(keys(firstOnly.records), ["0xc:0"]);
    assert.deepEqual(await store.uncreditedOf(7, 0), { total: 3, records: [] });
    assert.deepEqual(await store.uncreditedOf(99, 10), { total: 0, records: [] });
    assert.deepEqual(keys(await store.deposits(undefined, 10, 0)), [
      "0xd:0",
      "0xc:0",
      "0xb:0",
      "0xa:0",
      "0xa:1",
    ]);
    assert.deepEqual(keys(await store.deposits(undefined, 2, 1)), ["0xc:0", "0xb:0"]);
    assert.deepEqual(keys(await store.deposits("PENDING", 10, 0)), ["0xb:0", "0xa:0", "0xa:1"]);
    assert.deepEqual(keys(await store.deposits("PENDING", 10, 3)), []);
    assert.deepEqual(keys(await store.deposits("DROPPED", 10, 0)), []);
  });

  it("saves a signed withdrawal once: a second signing, or one for a held withdrawal, is refused", async () => {
    const { store, another } = await start();
    assert.equal(await store.withdrawal(1), undefined);
    assert.equal(await store.saveSigned(signed(1, 5)), true);
    assert.equal(await store.saveSigned({ ...signed(1, 6), rawTx: "0xother" }), false);
    const saved = await store.withdrawal(1);
    assert.deepEqual(saved, {
      withdrawalId: 1,
      status: "SIGNED",
      nonce: 5,
      fromAddress: "0xhot",
      toAddress: "0xto",
      units: hugeUnits,
      rawTx: "0xraw1",
      txHash: "0xtx1",
      blockNumber: null,
      broadcasts: 0,
      lastError: null,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
    });
    // Two nodes racing to sign the same withdrawal: exactly one wins.
    const second = await another();
    const results = await Promise.all([store.saveSigned(signed(2, 7)), second.saveSigned(signed(2, 8))]);
    assert.deepEqual(
      results.filter((won) => won),
      [true],
    );
    assert.equal(await store.saveUnsendable(3, "0xto", 10n, "would revert", nowMs), true);
    assert.equal(await store.saveUnsendable(3, "0xto", 10n, "again", nowMs), false);
    const unsendable = await store.withdrawal(3);
    assert.equal(unsendable?.status, "FAILED");
    assert.equal(unsendable?.lastError, "would revert");
    assert.equal(unsendable?.nonce, null);
    assert.equal(await store.saveSigned(signed(3, 9)), false);
  });

  it("moves a withdrawal through SENT and COMPLETED, counting broadcasts and keeping the hash", async () => {
    const { store } = await start();
    await store.saveSigned(signed(1, 0));
    await store.setWithdrawal(1, { status: "SENT", nowMs: nowMs + 1, broadcasted: true });
    await store.setWithdrawal(1, { status: "SENT", nowMs: nowMs + 2, broadcasted: true, lastError: "slow" });
    let row = await store.withdrawal(1);
    assert.equal(row?.broadcasts, 2);
    assert.equal(row?.lastError, "slow");
    assert.equal(row?.txHash, "0xtx1");
    await store.setWithdrawal(1, { status: "COMPLETED", nowMs: nowMs + 3, blockNumber: 2n ** 33n });
    row = await store.withdrawal(1);
    assert.equal(row?.status, "COMPLETED");
    assert.equal(row?.blockNumber, 2n ** 33n);
    assert.equal(row?.lastError, null);
    assert.equal(row?.updatedAtMs, nowMs + 3);
    await store.setWithdrawal(1, { status: "COMPLETED", nowMs: nowMs + 4, txHash: "0xelsewhere" });
    assert.equal((await store.withdrawal(1))?.txHash, "0xelsewhere");
    assert.equal((await store.withdrawal(1))?.blockNumber, 2n ** 33n);
  });

  it("holds a withdrawal only when nothing is in flight, keeps its error, and releases it", async () => {
    const { store } = await start();
    // Never sent: held at once, and a held one cannot be signed.
    assert.equal(await store.hold(1, "0xto", nowMs), undefined);
    const held = await store.withdrawal(1);
    assert.equal(held?.status, "HELD");
    assert.equal(held?.units, 0n);
    assert.equal(held?.toAddress, "0xto");
    assert.equal(await store.saveSigned(signed(1, 0)), false);
    assert.equal(await store.hold(1, "0xto", nowMs + 1), undefined);
    // In flight: refused, and the row that forbids it comes back.
    await store.saveSigned(signed(2, 1));
    const refused = await store.hold(2, "0xto", nowMs);
    assert.equal(refused?.status, "SIGNED");
    assert.equal(refused?.txHash, "0xtx2");
    await store.setWithdrawal(2, { status: "SENT", nowMs });
    assert.equal((await store.hold(2, "0xto", nowMs))?.status, "SENT");
    // Failed: held, the error kept.
    await store.setWithdrawal(2, { status: "FAILED", nowMs, lastError: "reverted" });
    assert.equal(await store.hold(2, "0xto", nowMs + 5), undefined);
    const failedThenHeld = await store.withdrawal(2);
    assert.equal(failedThenHeld?.status, "HELD");
    assert.equal(failedThenHeld?.lastError, "reverted");
    assert.equal(failedThenHeld?.updatedAtMs, nowMs + 5);
    // Released: forgotten, so it is signed afresh.
    await store.release(2);
    assert.equal(await store.withdrawal(2), undefined);
    assert.equal(await store.saveSigned(signed(2, 3)), true);
    await store.release(99);
  });

  it("records every transaction of a withdrawal: the first, each replacement at its nonce, and which was mined", async () => {
    const { store, another } = await start();
    const pending = (txHash: string, nonce: number, signedAtMs: number, withdrawalId = 1) => ({
      txHash,
      withdrawalId,
      nonce,
      rawTx: `0xraw-${txHash}`,
      state: "PENDING",
      signedAtMs,
    });
    await store.saveSigned({ ...signed(1, 5), txHash: "0xa", rawTx: "0xraw-0xa" });
    await store.setWithdrawal(1, { status: "SENT", nowMs, broadcasted: true });
    assert.deepEqual(await store.withdrawalTransactions(1), [pending("0xa", 5, nowMs)]);
    const replacement = (txHash: string, previousTxHash: string, at: number, nonce = 5) => ({
      withdrawalId: 1,
      nonce,
      previousTxHash,
      rawTx: `0xraw-${txHash}`,
      txHash,
      nowMs: at,
    });
    // Made from a stale read (another transaction is the withdrawal's now, or another nonce): refused.
    assert.equal(await store.saveReplacement(replacement("0xb", "0xold", nowMs + 1)), false);
    assert.equal(await store.saveReplacement(replacement("0xb", "0xa", nowMs + 1, 6)), false);
    assert.equal(await store.saveReplacement(replacement("0xb", "0xa", nowMs + 1)), true);
    let row = await store.withdrawal(1);
    assert.deepEqual([row?.status, row?.txHash, row?.rawTx, row?.nonce], ["SIGNED", "0xb", "0xraw-0xb", 5]);
    // Two nodes replacing the same transaction: exactly one wins.
    const second = await another();
    const raced = await Promise.all([
      store.saveReplacement(replacement("0xc", "0xb", nowMs + 2)),
      second.saveReplacement(replacement("0xd", "0xb", nowMs + 2)),
    ]);
    assert.deepEqual(
      raced.filter((won) => won),
      [true],
    );
    const latest = raced[0] ? "0xc" : "0xd";
    assert.deepEqual(await store.withdrawalTransactions(1), [
      pending("0xa", 5, nowMs),
      pending("0xb", 5, nowMs + 1),
      pending(latest, 5, nowMs + 2),
    ]);
    // The first one was mined after all: it is the withdrawal's transaction again.
    await store.adoptTransaction(1, "0xa", nowMs + 3);
    row = await store.withdrawal(1);
    assert.deepEqual([row?.status, row?.txHash, row?.rawTx], ["SENT", "0xa", "0xraw-0xa"]);
    await store.adoptTransaction(1, "0xunknown", nowMs + 4);
    assert.equal((await store.withdrawal(1))?.txHash, "0xa");
    // Completed with it: it is MINED, the others can never be, in the same write.
    await store.setWithdrawal(1, { status: "COMPLETED", nowMs: nowMs + 5, minedTxHash: "0xa" });
    assert.deepEqual(
      (await store.withdrawalTransactions(1)).map((transaction) => [transaction.txHash, transaction.state]),
      [
        ["0xa", "MINED"],
        ["0xb", "DEAD"],
        [latest, "DEAD"],
      ],
    );
    // Nothing is replaced or adopted once the withdrawal is finished.
    assert.equal(await store.saveReplacement(replacement("0xe", "0xa", nowMs + 6)), false);
    await store.adoptTransaction(1, "0xb", nowMs + 6);
    assert.equal((await store.withdrawal(1))?.status, "COMPLETED");

    // Dropped (its nonce went elsewhere): every transaction of the nonce is dead. A retry signs
    // afresh at a new nonce, and the old transactions stay in the history.
    await store.saveSigned({ ...signed(2, 7), txHash: "0xf", rawTx: "0xraw-0xf" });
    await store.setWithdrawal(2, { status: "DROPPED", nowMs: nowMs + 7, minedTxHash: null });
    await store.hold(2, "0xto", nowMs + 8);
    await store.release(2);
    await store.saveSigned({ ...signed(2, 8), txHash: "0xg", rawTx: "0xraw-0xg", nowMs: nowMs + 9 });
    assert.deepEqual(await store.withdrawalTransactions(2), [
      { ...pending("0xf", 7, nowMs, 2), state: "DEAD" },
      pending("0xg", 8, nowMs + 9, 2),
    ]);
    assert.deepEqual(await store.withdrawalTransactions(99), []);
  });

  it("lists active withdrawals by nonce, the highest nonce per sender, and all by status", async () => {
    const { store } = await start();
    assert.equal(await store.highestNonce("0xhot"), undefined);
    await store.saveSigned(signed(1, 4));
    await store.saveSigned(signed(2, 2));
    await store.saveSigned(signed(3, 3));
    await store.saveSigned({ ...signed(4, 9), fromAddress: "0xcold" });
    await store.setWithdrawal(3, { status: "SENT", nowMs });
    await store.setWithdrawal(1, { status: "COMPLETED", nowMs });
    await store.saveUnsendable(5, "0xto", 1n, "no", nowMs);
    const ids = (rows: { withdrawalId: number }[]) => rows.map((row) => row.withdrawalId);
    assert.deepEqual(ids(await store.activeWithdrawals()), [2, 3, 4]);
    assert.equal(await store.highestNonce("0xhot"), 4);
    assert.equal(await store.highestNonce("0xcold"), 9);
    assert.deepEqual(ids(await store.withdrawals(undefined, 10, 0)), [5, 4, 3, 2, 1]);
    assert.deepEqual(ids(await store.withdrawals(undefined, 2, 2)), [3, 2]);
    assert.deepEqual(ids(await store.withdrawals("SIGNED", 10, 0)), [4, 2]);
    assert.deepEqual(ids(await store.withdrawals("FAILED", 10, 0)), [5]);
    assert.deepEqual(ids(await store.withdrawals("DROPPED", 10, 0)), []);
  });
}
