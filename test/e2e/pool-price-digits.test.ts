// Where two routes name the same price they give the same digits: an AMM option's live price on
// /socket/market-price and /orderbook/price's lastTradePrice are the pool's marginal price to the
// atom (8 decimals), as the market detail gives it, not cut to the 4 decimals of a book's tick.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { socketPaths } from "../../src/contract/paths.js";
import { openSigned } from "../realtime/fixtures.js";
import { startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

let platform: TradingPlatform;
before(async () => {
  platform = await startTradingPlatform();
});
after(() => platform.close());

describe("an AMM option's price after a trade", () => {
  it("has the same digits on the market detail, /orderbook/price and /socket/market-price", async () => {
    const market = await platform.openMarket({
      title: "Will the pool keep every digit?",
      modelType: "AMM",
      liquidity: 1000,
      weights: [0.53, 0.47],
    });
    const opened = await openSigned(platform, platform.partner, socketPaths.marketPrice, {
      query: { marketId: market.marketId },
    });
    const { socket, inbox } = opened;
    assert.ok(socket !== undefined && inbox !== undefined, JSON.stringify(opened));
    const { client } = await platform.fundedUser("100");
    await client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "MARKET",
      amount: 7.77,
    });
    const detail = await client.getMarketDetail(market.marketId);
    const [yes, no] = detail.outcomes[0]!.options;
    // The pool moved to a price that a 4-decimal tick cannot show.
    assert.match(yes!.price, /^0\.\d{5,8}$/, yes!.price);
    const yesLive = await inbox.next<{ optionId: string; price: string }>(
      (message) => message.optionId === market.yes && message.price !== "0.53",
    );
    const noLive = await inbox.next<{ optionId: string; price: string }>(
      (message) => message.optionId === market.no && message.price !== "0.47",
    );
    assert.deepEqual([yesLive.price, noLive.price], [yes!.price, no!.price]);
    const yesBook = await client.getPrice({ marketId: market.marketId, outcomeId: market.outcomeId });
    assert.equal(yesBook.lastTradePrice, yes!.price);
    const noBook = await client.getPrice({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
    });
    assert.equal(noBook.lastTradePrice, no!.price);
    socket.close();
  });
});
