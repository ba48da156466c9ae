// The wallet end to end (issue 7; DESIGN §4, §5, §8): deposit addresses, deposits credited once per
// txHash, withdrawals with MFA tickets, concurrent withdrawals against one balance, and the
// operator's approve / reject / complete, with every balance exact to the atom. A real platform on
// port 0, driven through the SDK; TOTP codes are computed from the secret as an app would.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import type { Withdrawal } from "../../src/contract/partner/wallet.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import {
  assertError,
  assertRejects,
  startWalletPlatform,
  usdtOf,
  type WalletPlatform,
} from "./wallet-fixtures.js";

const address = `0x${"ab".repeat(20)}`;
let platform: WalletPlatform;

before(async () => {
  platform = await startWalletPlatform();
});
after(() => platform.close());

describe("deposits", () => {
  it("gives each user one stable ERC20 address, 0x and 40 hex digits, coinId 2", async () => {
    const alice = await platform.user();
    const bob = await platform.user();
    const first = await alice.client.getDepositAddress();
    assert.deepEqual(Object.keys(first).sort(), ["address", "coinId", "network"]);
    assert.equal(first.coinId, "2");
    assert.equal(first.network, "ERC20");
    // EIP-55 checksummed: mixed case, the form wallets show and check.
    assert.match(first.address, /^0x[0-9a-fA-F]{40}$/);
    assert.deepEqual(await alice.client.getDepositAddress(), first);
    assert.notEqual((await bob.client.getDepositAddress()).address, first.address);
  });

  it("credits the same txHash once, whether sent twice or at the same time", async () => {
    const alice = await platform.user();
    const deposit = { userId: alice.userId, amount: "25.5", txHash: `0xonce-${process.pid}` };
    const answers = await Promise.all([1, 2, 3].map(() => platform.operator.deposit(deposit)));
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal((await platform.operator.deposit(deposit)).creditedAt, answers[0]!.creditedAt);
    assert.deepEqual(await usdtOf(alice.client), { available: "25.5", frozen: "0", total: "25.5" });
    const history = await alice.client.getDepositHistory();
    assert.equal(history.count, 1);
    assert.deepEqual(history.records, [
      {
        txHash: deposit.txHash,
        logIndex: null,
        coinId: "2",
        network: "ERC20",
        amount: "25.5",
        status: "CREDITED",
        confirmations: null,
        confirmationsRequired: null,
        createdAt: answers[0]!.creditedAt,
      },
    ]);
    // The same hash for another amount cannot be the same transaction.
    const other = await platform.admin("POST", "/admin/deposits", { ...deposit, amount: "26" });
    assertError(other, 400, 1001, "bad request: txHash was already credited with another user or amount");
    assert.equal((await alice.client.getDepositHistory()).count, 1);
  });

  it("credits by deposit address, as the chain watcher sees it (any letter case)", async () => {
    const alice = await platform.user();
    const { address: depositAddress } = await alice.client.getDepositAddress();
    const credited = await platform.operator.deposit({
      address: depositAddress.toUpperCase().replace("0X", "0x"),
      amount: 12,
      txHash: `0xbyaddress-${process.pid}`,
    });
    assert.equal(credited.userId, alice.userId);
    assert.equal((await usdtOf(alice.client)).available, "12");

    const unknown = await platform.admin("POST", "/admin/deposits", {
      address: `0x${"00".repeat(20)}`,
      amount: 1,
      txHash: "0xnobody",
    });
    assertError(unknown, 404, 1404, "resource not found: Deposit address not found");
    const both = await platform.admin("POST", "/admin/deposits", {
      userId: alice.userId,
      address: depositAddress,
      amount: 1,
      txHash: "0xboth",
    });
    assertError(both, 400, 1001, "bad request: exactly one of userId and address is required");
    assert.equal((await usdtOf(alice.client)).available, "12");
  });
});

describe("deposit → trade → withdraw with MFA", () => {
  it("needs a ticket, uses it once, keeps it when the withdrawal is refused, and settles exactly", async () => {
    const market = await platform.openMarket();
    const alice = await platform.user("100");
    const bob = await platform.user("100");

    // Trade: Alice bids 10 Yes at 0.6, Bob buys 10 No at 0.4: a mint at Alice's price.
    await alice.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.6,
      shares: 10,
    });
    await bob.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.4,
      shares: 10,
    });
    assert.deepEqual(await usdtOf(alice.client), { available: "94", frozen: "0", total: "94" });

    const secret = await platform.enableTotp(alice);
    const missing = await platform.call(alice, "POST", "/withdraw/apply", { body: { amount: 50, address } });
    assertError(missing, 400, 1001, "bad request: mfaTicket is required");
    const forged = await platform.call(alice, "POST", "/withdraw/apply", {
      body: { amount: 50, address, mfaTicket: "mfat_forged" },
    });
    assertError(forged, 400, 6001, "Invalid MFA ticket");

    const ticket = await platform.ticket(alice, secret);
    const pending = await alice.client.applyWithdrawal({ amount: 50, address, mfaTicket: ticket });
    assert.deepEqual(
      { ...pending, withdrawId: "", createdAt: "", updatedAt: "" },
      {
        withdrawId: "",
        coinId: "2",
        network: "ERC20",
        amount: "50",
        fee: "1",
        address,
        status: "PENDING",
        createdAt: "",
        updatedAt: "",
      },
    );
    assert.match(pending.withdrawId, /^[0-9]+$/);
    assert.deepEqual(await usdtOf(alice.client), { available: "43", frozen: "51", total: "94" });

    // The same ticket again: refused, nothing frozen.
    const replayed = await platform.call(alice, "POST", "/withdraw/apply", {
      body: { amount: 10, address, mfaTicket: ticket },
    });
    assertError(replayed, 400, 6001, "MFA ticket has already been used");
    assert.deepEqual(await usdtOf(alice.client), { available: "43", frozen: "51", total: "94" });

    // A withdrawal that does not fit is refused before the ticket is used: it still works after.
    const kept = await platform.ticket(alice, secret);
    const tooMuch = await platform.call(alice, "POST", "/withdraw/apply", {
      body: { amount: 43, address, mfaTicket: kept },
    });
    assertError(tooMuch, 400, 1001, "bad request: Insufficient balance");
    const malformed = await platform.call(alice, "POST", "/withdraw/apply", {
      body: { amount: 10.123456789, address, mfaTicket: kept },
    });
    assertError(malformed, 400, 1001, "bad request: amount has more than 8 decimal places");
    const second = await alice.client.applyWithdrawal({ amount: 42, address, mfaTicket: kept });
    assert.deepEqual([second.amount, second.fee, second.status], ["42", "1", "PENDING"]);
    assert.deepEqual(await usdtOf(alice.client), { available: "0", frozen: "94", total: "94" });

    // An expired ticket (5 minutes) is refused with 6002.
    const late = await platform.ticket(alice, secret);
    platform.advance(5 * 60_000 + 1_000);
    await alice.client.cancelWithdrawal(second.withdrawId);
    const expired = await platform.call(alice, "POST", "/withdraw/apply", {
      body: { amount: 10, address, mfaTicket: late },
    });
    assertError(expired, 400, 6002, "MFA ticket has expired");

    // The operator sends the first one out: amount and fee leave; the cancelled one came back.
    await platform.operator.approveWithdrawal(pending.withdrawId);
    const completed = await platform.operator.completeWithdrawal(pending.withdrawId);
    assert.deepEqual([completed.status, completed.userId], ["COMPLETED", alice.userId]);
    assert.deepEqual(await usdtOf(alice.client), { available: "43", frozen: "0", total: "43" });
    const history = await alice.client.getWithdrawHistory();
    assert.equal(history.count, 2);
    assert.deepEqual(
      history.records.map((record) => [record.withdrawId, record.amount, record.status]),
      [
        [second.withdrawId, "42", "CANCELLED"],
        [pending.withdrawId, "50", "COMPLETED"],
      ],
    );
  });
});

describe("concurrent withdrawals against one balance", () => {
  it("lets through only what fits, without MFA", async () => {
    const alice = await platform.user("100");
    // Eight withdrawals of 20 (+1 fee) at once against 100: four fit (84), four do not.
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => alice.client.applyWithdrawal({ amount: 20, address })),
    );
    const passed = results.filter((result) => result.status === "fulfilled");
    const refused = results.filter((result) => result.status === "rejected");
    assert.equal(passed.length, 4);
    for (const result of refused) {
      const error = (result as PromiseRejectedResult).reason;
      assert.ok(error instanceof PredexApiError);
      assert.deepEqual(
        [error.status, error.code, error.message],
        [400, 1001, "bad request: Insufficient balance"],
      );
    }
    assert.deepEqual(await usdtOf(alice.client), { available: "16", frozen: "84", total: "100" });
    assert.equal((await alice.client.getWithdrawHistory()).count, 4);
  });

  it("lets through only what fits with MFA, and the refused request keeps its ticket", async () => {
    const alice = await platform.user("100");
    const secret = await platform.enableTotp(alice);
    // Three tickets, from the codes of three TOTP steps.
    const tickets = [
      await platform.ticket(alice, secret),
      await platform.ticket(alice, secret),
      await platform.ticket(alice, secret),
    ];
    // Three withdrawals of 40 (+1) at once against 100: two fit.
    const results = await Promise.allSettled(
      tickets.map((mfaTicket) => alice.client.applyWithdrawal({ amount: 40, address, mfaTicket })),
    );
    const passed = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    assert.equal(passed.length, 2);
    assert.deepEqual(await usdtOf(alice.client), { available: "18", frozen: "82", total: "100" });
    // The refused one's ticket was not used up: after a deposit it goes through.
    const refusedIndex = results.findIndex((result) => result.status === "rejected");
    await platform.deposit(alice, "30");
    const later = await alice.client.applyWithdrawal({
      amount: 40,
      address,
      mfaTicket: tickets[refusedIndex]!,
    });
    assert.equal(later.status, "PENDING");
    assert.deepEqual(await usdtOf(alice.client), { available: "7", frozen: "123", total: "130" });
  });
});

describe("the withdrawal workflow", () => {
  async function applied(usdt: string, amount: number) {
    const user = await platform.user(usdt);
    const withdrawal = await user.client.applyWithdrawal({ amount, address });
    return { user, withdrawal };
  }
  // The workflow's refusals: each one has the same status, code and message wherever it is met.
  const refusedNotPending = (promise: Promise<unknown>) =>
    assertRejects(promise, 400, 1001, "bad request: Withdrawal is not pending");
  const refusedNotApproved = (promise: Promise<unknown>) =>
    assertRejects(promise, 400, 1001, "bad request: Withdrawal is not approved");
  const refusedNotFound = (promise: Promise<unknown>) =>
    assertRejects(promise, 404, 1404, "resource not found: Withdrawal not found");

  it("cancel while pending returns amount + fee; cancelling twice is refused", async () => {
    const { user, withdrawal } = await applied("50", 30);
    assert.deepEqual(await usdtOf(user.client), { available: "19", frozen: "31", total: "50" });
    const cancelled = await user.client.cancelWithdrawal(withdrawal.withdrawId);
    assert.equal(cancelled.status, "CANCELLED");
    assert.deepEqual(await usdtOf(user.client), { available: "50", frozen: "0", total: "50" });
    await refusedNotPending(user.client.cancelWithdrawal(withdrawal.withdrawId));
  });

  it("approve keeps it frozen and not cancellable; complete takes amount + fee", async () => {
    const { user, withdrawal } = await applied("50", 30);
    const approved = await platform.operator.approveWithdrawal(withdrawal.withdrawId);
    assert.equal(approved.status, "APPROVED");
    assert.deepEqual(await usdtOf(user.client), { available: "19", frozen: "31", total: "50" });
    await refusedNotPending(user.client.cancelWithdrawal(withdrawal.withdrawId));
    await refusedNotPending(platform.operator.approveWithdrawal(withdrawal.withdrawId));
    const completed = await platform.operator.completeWithdrawal(withdrawal.withdrawId);
    assert.equal(completed.status, "COMPLETED");
    assert.deepEqual(await usdtOf(user.client), { available: "19", frozen: "0", total: "19" });
    await refusedNotApproved(platform.operator.completeWithdrawal(withdrawal.withdrawId));
    await refusedNotPending(platform.operator.rejectWithdrawal(withdrawal.withdrawId));
  });

  it("complete needs an approval first", async () => {
    const { user, withdrawal } = await applied("50", 30);
    await refusedNotApproved(platform.operator.completeWithdrawal(withdrawal.withdrawId));
    assert.deepEqual(await usdtOf(user.client), { available: "19", frozen: "31", total: "50" });
  });

  it("reject returns amount + fee, from pending or from approved", async () => {
    const { user, withdrawal } = await applied("50", 30);
    const rejected = await platform.operator.rejectWithdrawal(withdrawal.withdrawId);
    assert.equal(rejected.status, "REJECTED");
    assert.deepEqual(await usdtOf(user.client), { available: "50", frozen: "0", total: "50" });

    const again = await user.client.applyWithdrawal({ amount: 10, address });
    await platform.operator.approveWithdrawal(again.withdrawId);
    assert.equal((await platform.operator.rejectWithdrawal(again.withdrawId)).status, "REJECTED");
    assert.deepEqual(await usdtOf(user.client), { available: "50", frozen: "0", total: "50" });
    assert.deepEqual(
      (await user.client.getWithdrawHistory()).records.map((record: Withdrawal) => record.status),
      ["REJECTED", "REJECTED"],
    );
  });

  it("an unknown withdrawal, or another user's, is not found", async () => {
    const { withdrawal } = await applied("50", 30);
    const mallory = await platform.user("50");
    await refusedNotFound(mallory.client.cancelWithdrawal(withdrawal.withdrawId));
    await refusedNotFound(mallory.client.cancelWithdrawal("999999"));
    await refusedNotFound(mallory.client.cancelWithdrawal("not-an-id"));
    // Finished ones too: their existence is none of another user's business.
    await platform.operator.rejectWithdrawal(withdrawal.withdrawId);
    await refusedNotFound(mallory.client.cancelWithdrawal(withdrawal.withdrawId));
    for (const action of ["approve", "reject", "complete"]) {
      assertError(
        await platform.admin("POST", `/admin/withdrawals/999999/${action}`),
        404,
        1404,
        "resource not found: Withdrawal not found",
      );
    }
  });

  it("the operator lists withdrawals by status and user, newest first", async () => {
    const { user, withdrawal: first } = await applied("100", 10);
    const second = await user.client.applyWithdrawal({ amount: 20, address });
    const third = await user.client.applyWithdrawal({ amount: 30, address });
    await platform.operator.approveWithdrawal(second.withdrawId);
    await user.client.cancelWithdrawal(third.withdrawId);

    const mine = await platform.operator.listWithdrawals({ userId: user.userId });
    assert.equal(mine.count, 3);
    assert.deepEqual(
      mine.records.map((record) => [record.withdrawId, record.status, record.userId]),
      [
        [third.withdrawId, "CANCELLED", user.userId],
        [second.withdrawId, "APPROVED", user.userId],
        [first.withdrawId, "PENDING", user.userId],
      ],
    );
    const pending = await platform.operator.listWithdrawals({ status: "pending", userId: user.userId });
    assert.deepEqual(
      pending.records.map((record) => record.withdrawId),
      [first.withdrawId],
    );
    // Across users: every PENDING one, whoever asked; page size 1 keeps the count.
    const anyone = await platform.operator.listWithdrawals({ status: "PENDING", pageSize: 1 });
    assert.ok(anyone.count >= 1);
    assert.equal(anyone.records.length, 1);
    assert.equal(anyone.records[0]!.status, "PENDING");

    assertError(
      await platform.admin("GET", "/admin/withdrawals?status=LOST"),
      400,
      1001,
      "bad request: status must be one of PENDING, APPROVED, COMPLETED, CANCELLED, REJECTED",
    );
  });

  it("`predex admin withdrawal approve|complete|list` drive the same workflow", async () => {
    const { user, withdrawal } = await applied("50", 30);
    const run = promisify(execFile);
    const cli = join(import.meta.dirname, "../../src/cli/main.ts");
    const env = { ...process.env, PREDEX_ADMIN_TOKEN: platform.platform.adminToken };
    for (const [action, status] of [
      ["approve", "APPROVED"],
      ["complete", "COMPLETED"],
    ] as const) {
      const { stdout } = await run(
        process.execPath,
        [
          "--import",
          "tsx",
          cli,
          "admin",
          "withdrawal",
          action,
          withdrawal.withdrawId,
          "--admin-url",
          platform.addresses.admin,
        ],
        { env },
      );
      const printed = JSON.parse(stdout) as { withdrawId: string; status: string; userId: string };
      assert.deepEqual(
        [printed.withdrawId, printed.status, printed.userId],
        [withdrawal.withdrawId, status, user.userId],
      );
    }
    assert.deepEqual(await usdtOf(user.client), { available: "19", frozen: "0", total: "19" });
    const { stdout } = await run(
      process.execPath,
      [
        "--import",
        "tsx",
        cli,
        "admin",
        "withdrawal",
        "list",
        "--user-id",
        user.userId,
        "--admin-url",
        platform.addresses.admin,
      ],
      { env },
    );
    const listed = JSON.parse(stdout) as {
      count: number;
      records: Array<{ withdrawId: string; status: string }>;
    };
    assert.deepEqual(
      [listed.count, listed.records[0]?.withdrawId, listed.records[0]?.status],
      [1, withdrawal.withdrawId, "COMPLETED"],
    );
  });
});
