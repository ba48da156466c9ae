// The spec's typical user flow, steps 1–8 (spec 000 "Typical user flow"), end to end through the
// SDK against a real server: register, assets, market detail, book and best price, LIMIT and MARKET
// orders, open orders, cancel, trades, with every balance exact to the atom.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiError } from "./harness.js";
import {
  atoms,
  type BinaryMarket,
  startTradingPlatform,
  type TradingPlatform,
  usdtOf,
} from "./trading-fixtures.js";

describe("the typical user flow, steps 1–8", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform();
    // A 1% taker fee, so that fees show up in the balances; makers pay none.
    market = await platform.openMarket({ takerFee: 100 });
  });
  after(() => platform.close());

  it("registers, trades and reviews activity with exact balances", async () => {
    // 1. Register (the fixture registers and keeps the session cookie); the operator credits 100 USDT.
    const alice = await platform.fundedUser("100");
    const bob = await platform.fundedUser("50");

    // 2. Balances.
    assert.deepEqual(await alice.client.getAssets(), [
      { coinId: "2", symbol: "USDT", available: "100", frozen: "0", total: "100" },
    ]);

    // 3–4. The market (no list yet: issue 5), read through its detail.
    const detail = await alice.client.getMarketDetail(market.marketId);
    assert.equal(detail.marketId, market.marketId);
    assert.equal(detail.status, "open");
    assert.equal(detail.takerFee, 100);
    assert.deepEqual(
      detail.outcomes[0]!.options.map((option) => [option.title, option.optionIndex, option.price]),
      [
        ["Yes", 0, "0.5"],
        ["No", 1, "0.5"],
      ],
    );

    // 5. An empty book and no prices yet.
    const emptyBook = await alice.client.getBook({ marketId: market.marketId, outcomeId: market.outcomeId });
    assert.deepEqual([emptyBook.bids, emptyBook.asks, emptyBook.optionId], [[], [], market.yes]);
    assert.match(emptyBook.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.deepEqual(
      await alice.client.getPrice({ marketId: market.marketId, outcomeId: market.outcomeId }),
      {
        bestBid: null,
        bestAsk: null,
        midPrice: null,
        spread: null,
        lastTradePrice: null,
      },
    );

    // 6. A LIMIT BUY of 10 Yes at 0.6 rests and freezes 6 USDT.
    const bid = await alice.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.6,
      shares: 10,
    });
    assert.equal(bid.status, "OPEN");
    assert.deepEqual(
      [bid.limitPrice, bid.shares, bid.filledShares, bid.avgPrice, bid.trades],
      ["0.6", "10", "0", null, []],
    );
    assert.deepEqual(await usdtOf(alice.client), { available: "94", frozen: "6", total: "100" });

    // Bob buys 4 No at 0.4 (LIMIT): a mint against Alice's bid, at her price; Bob pays the 1% taker fee.
    const mint = await bob.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.4,
      shares: 4,
    });
    assert.equal(mint.status, "FILLED");
    assert.equal(mint.avgPrice, "0.4");
    assert.deepEqual(
      mint.trades.map((trade) => [trade.role, trade.price, trade.shares, trade.fee]),
      [["TAKER", "0.4", "4", "0.016"]],
    );
    assert.deepEqual(await usdtOf(bob.client), { available: "48.384", frozen: "0", total: "48.384" });
    assert.deepEqual(await usdtOf(alice.client), { available: "94", frozen: "3.6", total: "97.6" });

    // The book and prices now show Alice's remaining bid, in Yes prices and in No prices.
    const book = await alice.client.getBook({ marketId: market.marketId, outcomeId: market.outcomeId });
    assert.deepEqual(book.bids, [{ price: "0.6", size: "6" }]);
    const noBook = await alice.client.getBook({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
    });
    assert.deepEqual([noBook.bids, noBook.asks], [[], [{ price: "0.4", size: "6" }]]);
    assert.ok(noBook.seq >= book.seq);
    assert.deepEqual(
      await alice.client.getPrice({ marketId: market.marketId, outcomeId: market.outcomeId }),
      {
        bestBid: "0.6",
        bestAsk: null,
        midPrice: null,
        spread: null,
        lastTradePrice: "0.6",
      },
    );

    // A MARKET BUY of No spending 1 USDT, fee included: 2.4752 shares at 0.4 (0.99008 + 0.0099008 fee).
    const marketBuy = await bob.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      side: "BUY",
      orderType: "MARKET",
      amount: 1,
    });
    assert.deepEqual(
      [marketBuy.status, marketBuy.orderType, marketBuy.timeInForce, marketBuy.filledShares, marketBuy.fee],
      ["FILLED", "MARKET", "FAK", "2.4752", "0.0099008"],
    );
    assert.deepEqual(await usdtOf(bob.client), { available: "47.3840192", frozen: "0", total: "47.3840192" });
    assert.deepEqual(await usdtOf(alice.client), { available: "94", frozen: "2.11488", total: "96.11488" });

    // 7. Open orders: Alice's bid, partly filled; pagination beside data.
    const open = await alice.client.getOpenOrders();
    assert.deepEqual([open.current, open.size, open.total, open.pages], [1, 10, 1, 1]);
    const [resting] = open.records;
    assert.deepEqual(
      [resting?.orderId, resting?.status, resting?.filledShares, resting?.avgPrice, resting?.trades.length],
      [bid.orderId, "PARTIALLY_FILLED", "6.4752", "0.6", 2],
    );
    assert.deepEqual((await bob.client.getOpenOrders()).records, []);

    // Cancel: the rest of Alice's reserve comes back.
    const cancelled = await alice.client.cancelOrder(bid.orderId);
    assert.deepEqual(
      [cancelled.orderId, cancelled.status, cancelled.filledShares],
      [bid.orderId, "CANCELLED", "6.4752"],
    );
    assert.deepEqual(await usdtOf(alice.client), { available: "96.11488", frozen: "0", total: "96.11488" });
    assert.equal((await alice.client.getOpenOrders()).total, 0);
    await assert.rejects(
      alice.client.cancelOrder(bid.orderId),
      apiError(400, 1001, "bad request: Order is not cancellable"),
    );

    // 8. Trades: Alice was the maker twice at 0.6, Bob the taker twice at 0.4.
    const aliceTrades = await alice.client.getTrades();
    assert.deepEqual(
      aliceTrades.records.map((trade) => [
        trade.role,
        trade.side,
        trade.optionId,
        trade.price,
        trade.shares,
        trade.fee,
      ]),
      [
        ["MAKER", "BUY", market.yes, "0.6", "2.4752", "0"],
        ["MAKER", "BUY", market.yes, "0.6", "4", "0"],
      ],
    );
    const bobTrades = await bob.client.getTrades({ marketId: market.marketId });
    assert.deepEqual(
      bobTrades.records.map((trade) => [trade.role, trade.price, trade.shares, trade.fee, trade.orderId]),
      [
        ["TAKER", "0.4", "2.4752", "0.0099008", marketBuy.orderId],
        ["TAKER", "0.4", "4", "0.016", mint.orderId],
      ],
    );
    assert.deepEqual([bobTrades.total, bobTrades.current, bobTrades.size, bobTrades.pages], [2, 1, 10, 1]);
    assert.equal(aliceTrades.records[0]!.tradeId, bobTrades.records[0]!.tradeId);

    // Nothing was created or lost: deposits = balances + collateral (6.4752 pairs) + fees.
    const detailAfter = await alice.client.getMarketDetail(market.marketId);
    assert.equal(detailAfter.fee, "0.0259008");
    const balances = atoms((await usdtOf(alice.client)).total) + atoms((await usdtOf(bob.client)).total);
    assert.equal(balances + atoms("6.4752") + atoms(detailAfter.fee), atoms("150"));
  });
});
