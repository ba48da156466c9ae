// The wallet's refusals and history shapes as a partner sees them on the wire (spec 000, DESIGN §6,
// §8): every refused withdrawal's status, code and message, and that it changed nothing; where each
// history puts its pagination (`count`/`records` in `data` for deposits and withdrawals, the page
// fields inside `data` for the account history); the ledger entries of a withdrawal's life.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ledgerEntryTypes } from "../../src/store/exchange-read-models.js";
import {
  assertError,
  startWalletPlatform,
  usdtOf,
  type WalletPlatform,
  type WalletUser,
} from "./wallet-fixtures.js";

const address = `0x${"Cd".repeat(20)}`;
let platform: WalletPlatform;

before(async () => {
  platform = await startWalletPlatform();
});
after(() => platform.close());

/** What a refusal must leave as it was. */
async function snapshot(walletUser: WalletUser) {
  return {
    assets: await usdtOf(walletUser.client),
    withdrawals: (await walletUser.client.getWithdrawHistory()).count,
    ledger: (await walletUser.client.getAccountHistory()).total,
  };
}

describe("POST /withdraw/apply refuses bad input with the spec's shape and changes nothing", () => {
  const refusals: Array<[string, unknown, number, number, string]> = [
    ["amount as a string", { amount: "50", address }, 400, 1001, "bad request: amount must be number"],
    ["no amount", { address }, 400, 1001, "bad request: Missing required field amount"],
    ["no address", { amount: 50 }, 400, 1001, "bad request: Missing required field address"],
    [
      "more than 8 decimals",
      { amount: 12.000000001, address },
      400,
      1001,
      "bad request: amount has more than 8 decimal places",
    ],
    [
      "below the minimum",
      { amount: 9.99999999, address },
      400,
      1001,
      "bad request: amount must be between 10 and 1000000 USDT",
    ],
    ["zero", { amount: 0, address }, 400, 1001, "bad request: amount must be between 10 and 1000000 USDT"],
    [
      "negative",
      { amount: -20, address },
      400,
      1001,
      "bad request: amount must be between 10 and 1000000 USDT",
    ],
    [
      "above the maximum",
      { amount: 1_000_000.00000001, address },
      400,
      1001,
      "bad request: amount must be between 10 and 1000000 USDT",
    ],
    [
      "a short address",
      { amount: 20, address: "0x1234" },
      400,
      1001,
      "bad request: address must be 0x followed by 40 hex digits",
    ],
    [
      "an address without 0x",
      { amount: 20, address: "ab".repeat(21) },
      400,
      1001,
      "bad request: address must be 0x followed by 40 hex digits",
    ],
    [
      "an address with a non-hex digit",
      { amount: 20, address: `0x${"g".repeat(40)}` },
      400,
      1001,
      "bad request: address must be 0x followed by 40 hex digits",
    ],
    ["more than the balance", { amount: 50, address }, 400, 1001, "bad request: Insufficient balance"],
    ["the balance without the fee", { amount: 50, address }, 400, 1001, "bad request: Insufficient balance"],
    ["a JSON array", [], 400, 1001, "bad request: Request body must be a JSON object"],
  ];

  it("for each bad request in turn", async () => {
    const alice = await platform.user("50");
    const before = await snapshot(alice);
    for (const [what, body, status, code, message] of refusals) {
      const response = await platform.call(alice, "POST", "/withdraw/apply", { body });
      assert.equal(response.status, status, `${what}: ${response.text}`);
      assertError(response, status, code, message);
      assert.deepEqual(await snapshot(alice), before, what);
    }
    // Exactly the balance, fee included, fits; a `coinId` sent anyway is ignored (it is always "2").
    const all = await platform.call(alice, "POST", "/withdraw/apply", {
      body: { amount: 49, address, coinId: "7" },
    });
    assert.equal(all.status, 200, all.text);
    const withdrawal = (all.json as { data: { amount: string; fee: string; coinId: string } }).data;
    assert.deepEqual([withdrawal.amount, withdrawal.fee, withdrawal.coinId], ["49", "1", "2"]);
    assert.deepEqual(await usdtOf(alice.client), { available: "0", frozen: "50", total: "50" });
  });

  it("without a session, or with another content type", async () => {
    const alice = await platform.user("50");
    const noCookie = await platform.call(undefined, "POST", "/withdraw/apply", {
      body: { amount: 20, address },
    });
    assertError(noCookie, 401, 1401, "unauthorized: Missing Cookie header");
    // Signed at the real time: the platform's clock is within the 15-minute window of it.
    const signed = await platform.signed(platform.partner, {
      method: "POST",
      path: "/withdraw/apply",
      body: "amount=20",
      contentType: "text/plain",
      cookie: alice.client.sessionCookie!,
    });
    assert.equal(signed.status, 415, signed.text);
    assert.equal((signed.json as { code: number }).code, 1415);
    assert.deepEqual(await usdtOf(alice.client), { available: "50", frozen: "0", total: "50" });
  });

  it("POST /withdraw/cancel without a withdrawId", async () => {
    const alice = await platform.user("50");
    const response = await platform.call(alice, "POST", "/withdraw/cancel", { body: {} });
    assertError(response, 400, 1001, "bad request: Missing required field withdrawId");
  });
});

describe("history pagination", () => {
  it("deposit and withdraw history put count and records inside data, nothing beside it", async () => {
    const alice = await platform.user();
    for (const usdt of ["10", "20", "30"]) await platform.deposit(alice, usdt);
    await alice.client.applyWithdrawal({ amount: 10, address });
    await alice.client.applyWithdrawal({ amount: 11, address });

    const deposits = await platform.call(alice, "GET", "/deposit/history", {
      query: { page: "2", pageSize: "2" },
    });
    assert.equal(deposits.status, 200);
    const depositBody = deposits.json as {
      code: number;
      message: string;
      data: { count: number; records: Array<{ amount: string }> };
    };
    assert.deepEqual(Object.keys(depositBody).sort(), ["code", "data", "message"]);
    assert.deepEqual(Object.keys(depositBody.data).sort(), ["count", "records"]);
    assert.equal(depositBody.data.count, 3);
    // Newest first: page 2 of size 2 is the oldest deposit.
    assert.deepEqual(
      depositBody.data.records.map((record) => record.amount),
      ["10"],
    );

    const withdrawals = await platform.call(alice, "GET", "/withdraw/history", { query: { pageSize: "1" } });
    const withdrawBody = withdrawals.json as {
      data: { count: number; records: Array<Record<string, unknown>> };
    };
    assert.deepEqual(Object.keys(withdrawals.json as object).sort(), ["code", "data", "message"]);
    assert.deepEqual(Object.keys(withdrawBody.data).sort(), ["count", "records"]);
    assert.equal(withdrawBody.data.count, 2);
    assert.deepEqual(Object.keys(withdrawBody.data.records[0]!).sort(), [
      "address",
      "amount",
      "coinId",
      "createdAt",
      "fee",
      "network",
      "status",
      "txHash",
      "updatedAt",
      "withdrawId",
    ]);
    assert.deepEqual(
      [withdrawBody.data.records[0]!.amount, withdrawBody.data.records[0]!.coinId],
      ["11", "2"],
    );
    assert.match(String(withdrawBody.data.records[0]!.createdAt), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it("account history puts current, size, total, pages and records inside data", async () => {
    const alice = await platform.user();
    for (const usdt of ["10", "20", "30"]) await platform.deposit(alice, usdt);
    const response = await platform.call(alice, "GET", "/account/history", {
      query: { page: "1", pageSize: "2" },
    });
    const body = response.json as { data: Record<string, unknown> };
    assert.deepEqual(Object.keys(body).sort(), ["code", "data", "message"]);
    assert.deepEqual(Object.keys(body.data).sort(), ["current", "pages", "records", "size", "total"]);
    assert.deepEqual([body.data.current, body.data.size, body.data.total, body.data.pages], [1, 2, 3, 2]);

    const huge = await alice.client.getAccountHistory({ pageSize: 1000 });
    assert.deepEqual([huge.size, huge.records.length], [100, 3]);
  });

  it("refuses a page or pageSize below 1 (400/1001) and a non-number as plain text", async () => {
    const alice = await platform.user();
    for (const path of ["/deposit/history", "/withdraw/history", "/account/history"]) {
      assertError(
        await platform.call(alice, "GET", path, { query: { page: "0" } }),
        400,
        1001,
        "bad request: page must be >= 1",
      );
      assertError(
        await platform.call(alice, "GET", path, { query: { pageSize: "0" } }),
        400,
        1001,
        "bad request: pageSize must be >= 1",
      );
      const text = await platform.call(alice, "GET", path, { query: { page: "abc" } });
      assert.equal(text.status, 400);
      assert.match(text.headers.get("content-type") ?? "", /^text\/plain/);
    }
  });
});

describe("GET /account/history", () => {
  it("shows a withdrawal's life: frozen, released and debited, with exact balances after each entry", async () => {
    const alice = await platform.user("100");
    const cancelled = await alice.client.applyWithdrawal({ amount: 20, address });
    await alice.client.cancelWithdrawal(cancelled.withdrawId);
    const sent = await alice.client.applyWithdrawal({ amount: 30, address });
    await platform.operator.approveWithdrawal(sent.withdrawId);
    await platform.operator.completeWithdrawal(sent.withdrawId);

    const history = await alice.client.getAccountHistory();
    assert.equal(history.total, 7);
    const entries = history.records.map((entry) => [
      entry.type,
      entry.amount,
      entry.balanceAfter,
      entry.frozenAmount,
      entry.frozenAfter,
      entry.refId,
    ]);
    assert.deepEqual(entries.reverse(), [
      ["DEPOSIT", "100", "100", "0", "0", entries[0]![5]],
      ["WITHDRAWAL_FREEZE", "-21", "79", "21", "21", cancelled.withdrawId],
      ["WITHDRAWAL_UNFREEZE", "21", "100", "-21", "0", cancelled.withdrawId],
      ["WITHDRAWAL_FREEZE", "-31", "69", "31", "31", sent.withdrawId],
      ["WITHDRAWAL_UNFREEZE", "31", "100", "-31", "0", sent.withdrawId],
      ["WITHDRAWAL", "-30", "70", "0", "0", sent.withdrawId],
      ["WITHDRAWAL_FEE", "-1", "69", "0", "0", sent.withdrawId],
    ]);
    for (const entry of history.records) {
      assert.equal(entry.coinId, "2");
      assert.match(entry.entryId, /^[0-9]+$/);
      assert.match(entry.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    }
    assert.deepEqual(await usdtOf(alice.client), { available: "69", frozen: "0", total: "69" });
  });

  it("filters by type (any letter case) and refuses an unknown type", async () => {
    const alice = await platform.user("100");
    await platform.deposit(alice, "5");
    await alice.client.applyWithdrawal({ amount: 10, address });
    const deposits = await alice.client.getAccountHistory({ type: "deposit" });
    assert.deepEqual(
      deposits.records.map((entry) => [entry.type, entry.amount]),
      [
        ["DEPOSIT", "5"],
        ["DEPOSIT", "100"],
      ],
    );
    assert.equal(deposits.total, 2);
    assert.equal((await alice.client.getAccountHistory({ type: "WITHDRAWAL_FREEZE" })).total, 1);
    assert.equal((await alice.client.getAccountHistory({ type: "TRADE" })).total, 0);
    assertError(
      await platform.call(alice, "GET", "/account/history", { query: { type: "BONUS" } }),
      400,
      1001,
      `bad request: type must be one of ${ledgerEntryTypes.join(", ")}`,
    );
  });

  it("shows trades, their freezes and fees, and adds up to the available balance", async () => {
    const market = await platform.openMarket();
    const alice = await platform.user("100");
    const bob = await platform.user("100");
    const order = await alice.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.5,
      shares: 20,
    });
    await bob.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.5,
      shares: 10,
    });
    const history = await alice.client.getAccountHistory();
    const types = history.records.map((entry) => entry.type).reverse();
    assert.deepEqual(types, ["DEPOSIT", "FREEZE", "UNFREEZE", "TRADE"]);
    assert.equal(history.records.at(-2)!.refId, order.orderId);
    const sum = history.records.reduce((total, entry) => total + Number(entry.amount), 0);
    const assets = await usdtOf(alice.client);
    assert.equal(String(sum), assets.available);
    assert.equal(history.records[0]!.balanceAfter, assets.available);
    assert.equal(history.records[0]!.frozenAfter, assets.frozen);
  });
});
