// Subscribers who come after trading that nobody watched (issue #31: the fan-out builds nothing for
// channels without listeners, while every touched book is still kept current): the first messages
// they get describe the book and prices as they are, over real sockets.
//   - /ws/market: the `book` at subscription, then a price_change that removes a level added while
//     nobody watched, whose hash is the hash of the book after it;
//   - /socket/market-price: the price once it moves after the subscription (back to what a watcher
//     who left saw before the unwatched trading), equal to the market detail's, and nothing replayed
//     from before.
// Nothing watches the outcome under test while it is traded unwatched: the tests wait for that
// trading's publish round on ANOTHER market (roundsOutWitness), so a hub that let an unwatched
// book fall behind fails here.

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

/**
 * Tells when every publish round of what was committed so far has gone out, without watching the
 * market under test. The hub has one dirty set and one flush timer (RealtimeHub #markDirty/#flush):
 * a commit's feed is marked dirty when the commit is absorbed, commits are absorbed in commit order
 * (the engine tells its listeners before it answers a submitter, and the hub's reads run in order),
 * and a flush publishes every dirty feed in one synchronous pass. So an order placed on the other
 * market after the last trade under test is answered marks its feed dirty after that trade's: the
 * flush that publishes it publishes the trade's round too, unless an earlier flush already did.
 * Once the witness has the other market's change, no round of the trading under test is left for a
 * later subscriber to get.
 */
async function roundsOutWitness(title: string) {
  const other = await platform.openMarket(title);
  const watcher = marketSocket([other.yesAsset]);
  await watcher.next((event) => event.event_type === "book");
  return {
    /** Places a bid on the other market, waits until the witness sees it, and stops the witness. */
    async roundsOut(client: PredexClient): Promise<void> {
      await limit(other, client, true, "BUY", 0.2, 1);
      await watcher.next(
        (event) =>
          event.event_type === "price_change" &&
          (event.price_changes as { price: string; side: string }[]).some(
            (entry) => entry.side === "BUY" && entry.price === "0.2",
          ),
      );
      watcher.socket.stop();
    },
  };
}

/** A signed /socket/market-price socket on the market, closed at the end if a test fails first. */
async function priceSocket(market: Market) {
  const opened = await openSigned(platform, platform.partner, socketPaths.marketPrice, {
    query: { marketId: market.marketId },
  });
  const { socket, inbox } = opened;
  assert.ok(socket !== undefined && inbox !== undefined, JSON.stringify(opened));
  cleanups.push(() => socket.close());
  return { socket, inbox };
}

/** A trade of `shares` at `yesPrice`: a Yes bid, then the No bid at `noPrice` that crosses it. */
async function tradeAt(market: Market, yesPrice: number, noPrice: number, shares: number): Promise<void> {
  const [maker, taker] = traders as [PredexClient, PredexClient];
  await limit(market, maker, true, "BUY", yesPrice, shares);
  await limit(market, taker, false, "BUY", noPrice, shares);
}

describe("a subscriber who comes after trading nobody watched", () => {
  it("/ws/market: its book, then deltas whose hash is the book's after them", async () => {
    const market = await platform.openMarket("Late public subscriber");
    const [maker, taker] = traders as [PredexClient, PredexClient];
    // Nobody watches the outcome: a bid at 0.45, then one at 0.47. The 0.47 bid's publish round goes
    // out up to publishIntervalMs after the order; a /ws/market subscriber that came before it would
    // rightly get it (a price_change restating 0.47 x 5) ahead of the fill's. The witness on another
    // market tells when that round is out; the late socket below subscribes after it.
    const witness = await roundsOutWitness("Late public subscriber's witness");
    await limit(market, maker, true, "BUY", 0.45, 10);
    await limit(market, maker, true, "BUY", 0.47, 5);
    await witness.roundsOut(maker);
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
    const reader = marketSocket([market.yesAsset]);
    const now = await reader.next((event) => event.event_type === "book");
    assert.equal(entries[0]!.hash, now.hash);
    late.socket.stop();
    reader.socket.stop();
  });

  it("/socket/market-price: the price when it next moves, as the market detail gives it", async () => {
    const market = await platform.openMarket("Late price subscriber");
    const maker = traders[0]!;
    const signedSockets = platform.platform.realtime.hub.socketStats.gateway;
    // Someone watches the prices while a trade at 0.7 moves them, then leaves: the hub has published
    // 0.7, and once the watcher's close has reached the server (no signed socket left), nobody
    // watches the outcome.
    const before = await priceSocket(market);
    await tradeAt(market, 0.7, 0.3, 2);
    const seen = await before.inbox.next<{ optionId: string; price: string }>(
      (message) => message.optionId === market.yes,
    );
    assert.equal(seen.price, "0.7");
    before.socket.close();
    await waitUntil(() => signedSockets.closed === signedSockets.opened, {
      what: "the price watcher's close reached the server",
    });
    // Nobody watches the outcome: a trade at 0.6 moves its prices. Its publish round goes out up to
    // publishIntervalMs after the trade; a price subscriber that came before it would rightly get it.
    // The witness on another market tells when that round is out; the subscription below comes after
    // it. The next trade brings the price back to 0.7: a hub whose copy of the prices fell behind
    // while nobody watched (still 0.7) publishes either nothing (no move from 0.7) or, when the 0.7
    // bid's round goes out alone, the missed 0.6 (the price before the trade is the last trade's).
    const witness = await roundsOutWitness("Late price subscriber's witness");
    await tradeAt(market, 0.6, 0.4, 3);
    await witness.roundsOut(maker);
    const { socket, inbox } = await priceSocket(market);
    await tradeAt(market, 0.7, 0.3, 2);
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
