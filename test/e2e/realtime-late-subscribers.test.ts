// Subscribers who come after trading that nobody watched (issue #31: the fan-out builds nothing for
// channels without listeners, while every touched book is still kept current): the first messages
// they get describe the book and prices as they are, over real sockets.
//   - /ws/market: the `book` at subscription, then a price_change that removes a level added while
//     nobody watched, whose hash is the hash of the book after it;
//   - /socket/market-price: the price once it moves after the subscription, equal to the market
//     detail's, and nothing replayed from before.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { socketPaths } from "../../src/contract/paths.js";
import type { PredexClient } from "../../src/sdk/client.js";
import { type MarketEvent, MarketSocket } from "../../src/sdk/ws/market-socket.js";
import { openSigned, type RealtimePlatform, startRealtimePlatform } from "../realtime/fixtures.js";
import { waitUntil } from "../support/wait-until.js";

let platform: RealtimePlatform;
let traders: PredexClient[];

before(async () => {
  platform = await startRealtimePlatform({ publishIntervalMs: 10 });
  traders = await Promise.all([0, 1].map(async () => (await platform.fundedUser("100000")).client));
});
/** Sockets still open when a test fails are closed here, so the run ends either way. */
const cleanups: (() => void)[] = [];
after(async () => {
  for (const cleanup of cleanups) cleanup();
  await platform.close();
});

type Market = Awaited<ReturnType<RealtimePlatform["openMarket"]>>;

const limit = (
  market: Market,
  client: PredexClient,
  yes: boolean,
  side: "BUY" | "SELL",
  price: number,
  shares: number,
) =>
  client.createOrder({
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId: yes ? market.yes : market.no,
    side,
    orderType: "LIMIT",
    limitPrice: price,
    shares,
  });

/** A /ws/market socket on the assets; `next` waits for a matching event and takes it. */
function marketSocket(assetIds: string[]) {
  const events: MarketEvent[] = [];
  const socket = new MarketSocket({
    baseUrl: platform.addresses.public,
    assetIds,
    pingIntervalMs: 50,
    heartbeatTimeoutMs: 10_000,
    onEvent: (event) => events.push(event),
  });
  socket.start();
  cleanups.push(() => socket.stop());
  const next = async (match: (event: MarketEvent) => boolean): Promise<MarketEvent> => {
    let found: MarketEvent | undefined;
    await waitUntil(() => {
      found = events.find(match);
      return found !== undefined;
    }).catch(() => assert.fail(`no such event among ${JSON.stringify(events)}`));
    events.splice(events.indexOf(found!), 1);
    return found!;
  };
  return { socket, next };
}

describe("a subscriber who comes after trading nobody watched", () => {
  it("/ws/market: its book, then deltas whose hash is the book's after them", async () => {
    const market = await platform.openMarket("Late public subscriber");
    const [maker, taker] = traders as [PredexClient, PredexClient];
    // Nobody watches the public book: a bid at 0.45 (the book is first read here), then one at 0.47.
    // The 0.47 bid's publish round goes out up to publishIntervalMs after the order; a /ws/market
    // subscriber that came before it would rightly get it (a price_change restating 0.47 x 5) ahead
    // of the fill's. A /socket/clob-price-update witness sees the same round (one flush publishes
    // every channel of a feed): once it has the 0.47 level, the round is out, and the late socket
    // below subscribes after it.
    const opened = await openSigned(platform, platform.partner, socketPaths.clobPriceUpdate, {
      query: { marketId: market.marketId, outcomeId: market.outcomeId },
    });
    const { socket: witnessSocket, inbox: witnessInbox } = opened;
    assert.ok(witnessSocket !== undefined && witnessInbox !== undefined, JSON.stringify(opened));
    cleanups.push(() => witnessSocket.close());
    await limit(market, maker, true, "BUY", 0.45, 10);
    await limit(market, maker, true, "BUY", 0.47, 5);
    await witnessInbox.next<{ side: string; price: string; size: string }>(
      (message) => message.side === "BUY" && message.price === "0.47" && message.size === "5",
    );
    witnessSocket.close();
    const late = marketSocket([market.yesAsset]);
    const book = await late.next((event) => event.event_type === "book");
    assert.deepEqual((book.bids as { price: string }[]).map((level) => level.price).sort(), ["0.45", "0.47"]);
    // The first change after the subscription: the 0.47 bid is filled, the book is back to what it was
    // when it was first read. The delta says so (a diff against that first read would say nothing).
    await limit(market, taker, false, "BUY", 0.53, 5);
    const change = await late.next((event) => event.event_type === "price_change");
    const entries = change.price_changes as { price: string; size: string; side: string; hash: string }[];
    assert.deepEqual(
      entries.map((entry) => [entry.side, entry.price, entry.size]),
      [["BUY", "0.47", "0"]],
    );
    // A second socket's book, read now, hashes to what the delta said the book hashes to.
    const witness = marketSocket([market.yesAsset]);
    const now = await witness.next((event) => event.event_type === "book");
    assert.equal(entries[0]!.hash, now.hash);
    late.socket.stop();
    witness.socket.stop();
  });

  it("/socket/market-price: the price when it next moves, as the market detail gives it", async () => {
    const market = await platform.openMarket("Late price subscriber");
    const [maker, taker] = traders as [PredexClient, PredexClient];
    // Nobody watches the market's prices: a trade at 0.6 moves them. Its publish round goes out up to
    // publishIntervalMs after the trade; a price subscriber that came before it would rightly get it.
    // The public book's witness sees the same round (one flush publishes every channel of a feed):
    // once it has the trade, the round is out, and the subscription below comes after it.
    const witness = marketSocket([market.yesAsset]);
    await witness.next((event) => event.event_type === "book");
    await limit(market, maker, true, "BUY", 0.6, 3);
    await limit(market, taker, false, "BUY", 0.4, 3);
    await witness.next((event) => event.event_type === "last_trade_price");
    witness.socket.stop();
    const opened = await openSigned(platform, platform.partner, socketPaths.marketPrice, {
      query: { marketId: market.marketId },
    });
    const { socket, inbox } = opened;
    assert.ok(socket !== undefined && inbox !== undefined, JSON.stringify(opened));
    cleanups.push(() => socket.close());
    await limit(market, maker, true, "BUY", 0.7, 2);
    await limit(market, taker, false, "BUY", 0.3, 2);
    const detail = await maker.getMarketDetail(market.marketId);
    const [yes, no] = detail.outcomes[0]!.options;
    assert.deepEqual([yes!.price, no!.price], ["0.7", "0.3"]);
    const yesLive = await inbox.next<{ optionId: string; price: string }>(
      (message) => message.optionId === market.yes,
    );
    const noLive = await inbox.next<{ optionId: string; price: string }>(
      (message) => message.optionId === market.no,
    );
    assert.deepEqual([yesLive.price, noLive.price], ["0.7", "0.3"]);
    // Nothing from before the subscription was replayed.
    assert.equal(inbox.messages.length, 0, JSON.stringify(inbox.messages));
    socket.close();
  });
});
