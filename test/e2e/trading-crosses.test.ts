// The three crosses of DESIGN §3 over HTTP between users: mint (two buyers), transfer (shares for
// cash) and merge (two sellers), with balances exact to the atom. No fees, so the sums are plain.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CreateOrderRequest } from "../../src/contract/partner/trading.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform, usdtOf } from "./trading-fixtures.js";

describe("crosses between users over HTTP", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform();
    market = await platform.openMarket();
  });
  after(() => platform.close());

  const limit = (
    optionId: string,
    side: "BUY" | "SELL",
    limitPrice: number,
    shares: number,
  ): CreateOrderRequest => ({
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId,
    side,
    orderType: "LIMIT",
    limitPrice,
    shares,
  });

  it("mint, then transfer, then merge", async () => {
    const alice = await platform.fundedUser("10");
    const bob = await platform.fundedUser("10");
    const carol = await platform.fundedUser("10");

    // Mint: Alice bids 0.6 for Yes, Bob buys No at 0.4; 5 new pairs, 5 USDT into collateral.
    await alice.client.createOrder(limit(market.yes, "BUY", 0.6, 5));
    const mint = await bob.client.createOrder(limit(market.no, "BUY", 0.4, 5));
    assert.deepEqual([mint.status, mint.trades[0]?.price, mint.trades[0]?.shares], ["FILLED", "0.4", "5"]);
    assert.deepEqual(await usdtOf(alice.client), { available: "7", frozen: "0", total: "7" });
    assert.deepEqual(await usdtOf(bob.client), { available: "8", frozen: "0", total: "8" });

    // Transfer: Bob offers 2 No at 0.45; Carol buys them: cash for existing shares.
    const offer = await bob.client.createOrder(limit(market.no, "SELL", 0.45, 2));
    assert.equal(offer.status, "OPEN");
    const transfer = await carol.client.createOrder(limit(market.no, "BUY", 0.45, 2));
    assert.deepEqual([transfer.status, transfer.trades[0]?.price], ["FILLED", "0.45"]);
    assert.deepEqual(await usdtOf(bob.client), { available: "8.9", frozen: "0", total: "8.9" });
    assert.deepEqual(await usdtOf(carol.client), { available: "9.1", frozen: "0", total: "9.1" });

    // Merge: Alice sells 2 Yes at 0.55 (resting), Carol sells her 2 No at 0.45: a pair is burnt per share.
    await alice.client.createOrder(limit(market.yes, "SELL", 0.55, 2));
    const merge = await carol.client.createOrder(limit(market.no, "SELL", 0.45, 2));
    assert.deepEqual(
      [merge.status, merge.trades[0]?.price, merge.trades[0]?.shares],
      ["FILLED", "0.45", "2"],
    );
    assert.deepEqual(await usdtOf(alice.client), { available: "8.1", frozen: "0", total: "8.1" });
    assert.deepEqual(await usdtOf(carol.client), { available: "10", frozen: "0", total: "10" });

    // 30 deposited = 8.1 + 8.9 + 10 + 3 pairs of collateral left.
    const aliceTrades = await alice.client.getTrades();
    assert.deepEqual(
      aliceTrades.records.map((trade) => [trade.role, trade.side, trade.price, trade.shares]),
      [
        ["MAKER", "SELL", "0.55", "2"],
        ["MAKER", "BUY", "0.6", "5"],
      ],
    );
    const detail = await alice.client.getMarketDetail(market.marketId);
    // Volume: 5 (mint: both sides' cash) + 0.9 (transfer) + 2 (merge: both sides' cash).
    assert.equal(detail.volume, "7.9");
  });
});
