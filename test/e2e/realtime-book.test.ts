// A partner's local book, kept by the SDK from /socket/clob-price-update deltas, equals
// GET /orderbook/book after a random burst of orders, cancels and trades, also when the connection
// is dropped in the middle of the burst (the SDK reconnects and re-seeds).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PredexClient } from "../../src/sdk/client.js";
import { BookSubscription } from "../../src/sdk/ws/book-subscription.js";
import { type RealtimePlatform, startRealtimePlatform } from "../realtime/fixtures.js";
import { waitUntil } from "../support/wait-until.js";

let platform: RealtimePlatform;
let market: Awaited<ReturnType<RealtimePlatform["openMarket"]>>;
let traders: PredexClient[];

before(async () => {
  platform = await startRealtimePlatform({ publishIntervalMs: 20 });
  market = await platform.openMarket();
  traders = await Promise.all([0, 1, 2].map(async () => (await platform.fundedUser("1000000")).client));
});
after(() => platform.close());

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

async function burst(seed: number, steps: number, midway?: () => void): Promise<void> {
  const next = random(seed);
  const resting: { client: PredexClient; orderId: string }[] = [];
  for (let step = 0; step < steps; step += 1) {
    if (step === Math.floor(steps / 2)) midway?.();
    const client = traders[Math.floor(next() * traders.length)]!;
    if (resting.length > 0 && next() < 0.25) {
      const [cancel] = resting.splice(Math.floor(next() * resting.length), 1);
      await cancel!.client.cancelOrder(cancel!.orderId).catch(() => undefined);
      continue;
    }
    // Prices 0.40–0.60 on both options: buys and sells cross often (transfers, mints and merges).
    const order = await client
      .createOrder({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: next() < 0.5 ? market.yes : market.no,
        side: next() < 0.5 ? "BUY" : "SELL",
        orderType: "LIMIT",
        limitPrice: Math.round((0.4 + next() * 0.2) * 100) / 100,
        shares: 1 + Math.floor(next() * 20),
      })
      .catch(() => undefined);
    if (order !== undefined && (order.status === "OPEN" || order.status === "PARTIALLY_FILLED")) {
      resting.push({ client, orderId: order.orderId });
    }
  }
}

function subscribe(client: PredexClient, optionId?: string): BookSubscription {
  const subscription = new BookSubscription({
    baseUrl: platform.addresses.gateway,
    credentials: platform.partner,
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    ...(optionId === undefined ? {} : { optionId }),
    seed: () =>
      client.getBook({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        ...(optionId === undefined ? {} : { optionId }),
      }),
    backoff: { delayMsBase: 10, delayMsMax: 50 },
  });
  subscription.start();
  return subscription;
}

async function assertSameAsRest(subscription: BookSubscription, client: PredexClient, optionId?: string) {
  const query = {
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    ...(optionId === undefined ? {} : { optionId }),
  };
  let last: unknown;
  try {
    await waitUntil(
      async () => {
        const rest = await client.getBook(query);
        const local = subscription.levels();
        last = { rest: { bids: rest.bids, asks: rest.asks }, local };
        return JSON.stringify(local) === JSON.stringify({ bids: rest.bids, asks: rest.asks });
      },
      { timeoutMs: 5_000 },
    );
  } catch {
    assert.fail(`local book differs from GET /orderbook/book: ${JSON.stringify(last)}`);
  }
}

describe("a subscriber's local book", () => {
  it("equals GET /orderbook/book after a random burst of orders, cancels and trades", async () => {
    const watcher = traders[0]!;
    const yesBook = subscribe(watcher);
    const noBook = subscribe(watcher, market.no);
    await Promise.all([yesBook.whenLive(), noBook.whenLive()]);
    await burst(1, 150);
    await assertSameAsRest(yesBook, watcher);
    await assertSameAsRest(noBook, watcher, market.no);
    assert.ok(yesBook.levels().bids.length + yesBook.levels().asks.length > 0, "the burst left a book");
    const trades = await Promise.all(
      traders.map((client) => client.getTrades({ marketId: market.marketId })),
    );
    assert.ok(
      trades.some((page) => page.total > 0),
      "the burst traded",
    );
    yesBook.stop();
    noBook.stop();
  });

  it("equals GET /orderbook/book across a forced reconnect in the middle of a burst", async () => {
    const watcher = traders[1]!;
    const book = subscribe(watcher);
    await book.whenLive();
    const seedsBefore = book.seedCount;
    await burst(2, 150, () => book.dropConnection());
    await assertSameAsRest(book, watcher);
    assert.ok(book.seedCount > seedsBefore, "the reconnect re-seeded the book");
    book.stop();
  });

  it("equals GET /orderbook/book when it subscribes after a burst nobody watched, seeded once", async () => {
    // Nobody watches the book during this burst: the server neither reads nor tracks it (#31).
    await burst(4, 60);
    const watcher = traders[0]!;
    const yesBook = subscribe(watcher);
    const noBook = subscribe(watcher, market.no);
    await Promise.all([yesBook.whenLive(), noBook.whenLive()]);
    await burst(5, 60);
    await assertSameAsRest(yesBook, watcher);
    await assertSameAsRest(noBook, watcher, market.no);
    // The deltas continue from the book the subscription was seeded with: no gap, no second seed.
    assert.deepEqual([yesBook.seedCount, noBook.seedCount], [1, 1]);
    yesBook.stop();
    noBook.stop();
  });

  it("is seeded before any delta is applied when it subscribes in the middle of a burst", async () => {
    const watcher = traders[2]!;
    let late: BookSubscription | undefined;
    await burst(3, 80, () => {
      late = subscribe(watcher);
    });
    await late!.whenLive();
    await assertSameAsRest(late!, watcher);
    late!.stop();
  });
});
