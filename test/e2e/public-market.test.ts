// The public /ws/market speaks Polymarket's market channel: subscribe at connect or later, a `book`
// per asset right after subscribing, then price_change, best_bid_ask, last_trade_price; new_market
// when a market opens and market_resolved when it settles; a text PING is answered PONG. Every
// event names its market by the outcome's condition id, as GET /book and /markets do.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MarketEvent, MarketSocket } from "../../src/sdk/ws/market-socket.js";
import { closed, openSocket, type RealtimePlatform, startRealtimePlatform } from "../realtime/fixtures.js";
import { waitUntil } from "../support/wait-until.js";

let platform: RealtimePlatform;
let market: Awaited<ReturnType<RealtimePlatform["openMarket"]>>;

before(async () => {
  platform = await startRealtimePlatform({ publishIntervalMs: 10, subscriptionsPerSocketMax: 4 });
  market = await platform.openMarket();
});
after(() => platform.close());

/** The condition id GET /book names an asset's market by (Polymarket's `market`). */
async function conditionOf(assetId: string): Promise<string> {
  const response = await fetch(new URL(`/book?token_id=${assetId}`, platform.addresses.public));
  const book = (await response.json()) as { market: string };
  assert.match(book.market, /^0x[0-9a-f]{64}$/);
  return book.market;
}

const wsUrl = () => new URL("/ws/market", platform.addresses.public.replace(/^http/, "ws")).href;

function marketSocket(assetIds: string[]) {
  const events: MarketEvent[] = [];
  const socket = new MarketSocket({
    baseUrl: platform.addresses.public,
    assetIds,
    pingIntervalMs: 50,
    // Generous: a loaded test box must not make the client replace a healthy socket mid-test.
    heartbeatTimeoutMs: 10_000,
    onEvent: (event) => events.push(event),
  });
  socket.start();
  const next = async (match: (event: MarketEvent) => boolean): Promise<MarketEvent> => {
    let found: MarketEvent | undefined;
    await waitUntil(() => {
      found = events.find(match);
      return found !== undefined;
    }).catch(() => assert.fail(`no such event among ${JSON.stringify(events)}`));
    return found!;
  };
  return { socket, events, next };
}

const order = async (
  client: Awaited<ReturnType<RealtimePlatform["fundedUser"]>>["client"],
  optionId: string,
  side: "BUY" | "SELL",
  limitPrice: number,
  shares: number,
) =>
  client.createOrder({
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId,
    side,
    orderType: "LIMIT",
    limitPrice,
    shares,
  });

describe("/ws/market", () => {
  it("answers a text PING with PONG", async () => {
    const { socket, inbox } = await openSocket(wsUrl());
    socket!.send("PING");
    assert.equal(await inbox!.next((message) => (message as unknown) === "PONG"), "PONG");
    socket!.close();
  });

  it("sends a book per asset right after subscribing at connect, with Polymarket's fields", async () => {
    const { socket, next } = marketSocket([market.yesAsset, market.noAsset]);
    const yes = await next((event) => event.event_type === "book" && event.asset_id === market.yesAsset);
    await next((event) => event.event_type === "book" && event.asset_id === market.noAsset);
    assert.deepEqual(Object.keys(yes).sort(), [
      "asks",
      "asset_id",
      "bids",
      "event_type",
      "hash",
      "last_trade_price",
      "market",
      "tick_size",
      "timestamp",
    ]);
    assert.equal(yes.market, await conditionOf(market.yesAsset));
    assert.match(String(yes.timestamp), /^\d{13}$/);
    await waitUntil(() => socket.pongs > 0);
    socket.stop();
  });

  it("sends price_change, best_bid_ask and last_trade_price as the book moves and trades", async () => {
    const { socket, next } = marketSocket([]);
    await waitUntil(() => socket.state === "open");
    socket.subscribe([market.yesAsset]);
    const book = await next((event) => event.event_type === "book" && event.asset_id === market.yesAsset);
    assert.ok(Array.isArray(book.bids));
    const maker = await platform.fundedUser();
    const taker = await platform.fundedUser();
    await order(maker.client, market.yes, "BUY", 0.42, 10);
    const change = await next(
      (event) =>
        event.event_type === "price_change" &&
        (event.price_changes as { price: string }[]).some((entry) => entry.price === "0.42"),
    );
    const entry = (change.price_changes as Record<string, string>[]).find((item) => item.price === "0.42")!;
    assert.deepEqual(Object.keys(entry).sort(), [
      "asset_id",
      "best_ask",
      "best_bid",
      "hash",
      "price",
      "side",
      "size",
    ]);
    assert.equal(entry.side, "BUY");
    assert.equal(entry.size, "10");
    assert.equal(entry.asset_id, market.yesAsset);
    const condition = await conditionOf(market.yesAsset);
    assert.equal(change.market, condition);
    const best = await next((event) => event.event_type === "best_bid_ask" && event.best_bid === "0.42");
    assert.deepEqual(Object.keys(best).sort(), [
      "asset_id",
      "best_ask",
      "best_bid",
      "event_type",
      "market",
      "spread",
      "timestamp",
    ]);
    assert.equal(best.market, condition);
    // A No buyer at 0.58 mints against the Yes bid at 0.42.
    await order(taker.client, market.no, "BUY", 0.58, 4);
    const trade = await next((event) => event.event_type === "last_trade_price");
    assert.deepEqual(
      { price: trade.price, size: trade.size, side: trade.side, asset_id: trade.asset_id },
      { price: "0.42", size: "4", side: "SELL", asset_id: market.yesAsset },
    );
    assert.equal(trade.market, condition);
    assert.match(String(trade.timestamp), /^\d{13}$/);
    await next(
      (event) =>
        event.event_type === "price_change" &&
        (event.price_changes as { price: string; size: string }[]).some(
          (item) => item.price === "0.42" && item.size === "6",
        ),
    );
    socket.stop();
  });

  it("stops sending an asset's events after unsubscribe", async () => {
    const { socket, events, next } = marketSocket([market.noAsset]);
    await next((event) => event.event_type === "book");
    socket.unsubscribe([market.noAsset]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = events.length;
    const { client } = await platform.fundedUser();
    await order(client, market.no, "BUY", 0.3, 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(events.filter((event) => event.event_type !== "new_market").length, before);
    socket.stop();
  });

  it("sends new_market when a market opens and market_resolved when it settles", async () => {
    const { socket, next } = marketSocket([]);
    await waitUntil(() => socket.state === "open");
    const opened = await platform.openMarket("Will it snow in Lisbon?");
    const condition = await conditionOf(opened.yesAsset);
    const created = await next((event) => event.event_type === "new_market" && event.market === condition);
    assert.equal(created.id, opened.outcomeId);
    assert.deepEqual(created.assets_ids, [opened.yesAsset, opened.noAsset]);
    assert.deepEqual(created.outcomes, ["Yes", "No"]);
    await platform.operator.closeMarket(opened.marketId);
    await platform.operator.resolveMarket(opened.marketId, {
      outcomes: [{ outcomeId: opened.outcomeId, winningOptionId: opened.no }],
    });
    await platform.operator.finalizeMarket(opened.marketId);
    const resolved = await next(
      (event) => event.event_type === "market_resolved" && event.market === condition,
    );
    assert.equal(resolved.winning_asset_id, opened.noAsset);
    assert.equal(resolved.winning_outcome, "No");
    socket.stop();
  });

  it("answers a malformed message with {error} and keeps the connection", async () => {
    const { socket, inbox } = await openSocket(wsUrl());
    socket!.send("{not json");
    const refused = await inbox!.next((message) => typeof (message as { error?: string }).error === "string");
    assert.deepEqual(refused, { error: "message must be JSON or PING" });
    socket!.send(JSON.stringify({ operation: "sideways", assets_ids: [] }));
    await inbox!.next((message) => typeof (message as { error?: string }).error === "string");
    socket!.send("PING");
    await inbox!.next((message) => (message as unknown) === "PONG");
    socket!.close();
  });

  it("closes with 1008 a socket that follows more assets than the limit", async () => {
    const { socket } = await openSocket(wsUrl());
    const close = closed(socket!);
    socket!.send(JSON.stringify({ type: "market", assets_ids: ["1", "2", "3", "4", "5"] }));
    assert.equal((await close).code, 1008);
  });
});
