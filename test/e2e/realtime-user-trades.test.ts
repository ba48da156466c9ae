// /socket/user-trades through the SDK's UserTradesSubscription over real sockets (DESIGN §9): each
// side of a trade reaches its own user only, with its role, fee, price in its option's terms and
// clientOrderId, stamped with the journal sequence of the command that made it; mints and merges
// too. The channel replays nothing: a client that was away catches up with GET /trades, which the
// subscription does by itself after a reconnect (or from `sinceTradeId` at its first connect).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { UserTradeMessage } from "../../src/contract/channels.js";
import type { CreateOrderRequest, Trade } from "../../src/contract/partner/trading.js";
import type { PredexClient } from "../../src/sdk/client.js";
import {
  type UserTradesState,
  UserTradesSubscription,
  type UserTradesSubscriptionOptions,
} from "../../src/sdk/ws/user-trades-subscription.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { waitUntil } from "../support/wait-until.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

let platform: TradingPlatform;
let market: BinaryMarket;
const subscriptions: UserTradesSubscription[] = [];
/** The clientOrderId the SDK gives an order that names none (a v4 UUID). */
const SDK_DEFAULT_CLIENT_ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

before(async () => {
  platform = await startTradingPlatform();
});
/** Each test trades in a book of its own; 1% maker fee, 2% taker fee: every side's fee is its own. */
async function freshMarket(): Promise<void> {
  market = await platform.openMarket({ title: "Fills", makerFee: 100, takerFee: 200 });
}
after(async () => {
  for (const subscription of subscriptions) subscription.stop();
  await platform.close();
});

interface Followed {
  readonly client: PredexClient;
  readonly userId: string;
  readonly live: UserTradeMessage[];
  readonly missed: Trade[];
  readonly states: UserTradesState[];
  readonly subscription: UserTradesSubscription;
}

/** A funded user whose fills a UserTradesSubscription follows (through `baseUrl` when given). */
async function followedUser(
  usdt: string,
  options: {
    baseUrl?: string;
    catchUp?: boolean;
    sinceTradeId?: string;
    user?: Followed;
    /** Makes the n-th GET /trades read (1-based) fail, as a network error would. */
    failRead?: number;
  } = {},
): Promise<Followed> {
  const { client, userId } = options.user ?? (await platform.fundedUser(usdt));
  const live: UserTradeMessage[] = [];
  const missed: Trade[] = [];
  const states: UserTradesState[] = [];
  let reads = 0;
  const subscriptionOptions: UserTradesSubscriptionOptions = {
    baseUrl: options.baseUrl ?? platform.addresses.gateway,
    credentials: platform.partner,
    cookie: () => client.sessionCookie,
    backoff: { delayMsBase: 20, delayMsMax: 100 },
    onTrade: (trade) => live.push(trade),
    onMissedTrades: (trades) => missed.push(...trades),
    onStateChange: (state) => states.push(state),
    ...(options.catchUp === false
      ? {}
      : {
          getTrades: async (query) => {
            reads += 1;
            if (reads === options.failRead) throw new Error("the read failed");
            return client.getTrades(query);
          },
        }),
    ...(options.sinceTradeId === undefined ? {} : { sinceTradeId: options.sinceTradeId }),
  };
  const subscription = new UserTradesSubscription(subscriptionOptions);
  subscriptions.push(subscription);
  subscription.start();
  await subscription.whenLive();
  return { client, userId, live, missed, states, subscription };
}

const limit = (
  optionId: string,
  side: "BUY" | "SELL",
  limitPrice: number,
  shares: number,
  clientOrderId?: string,
): CreateOrderRequest => ({
  marketId: market.marketId,
  outcomeId: market.outcomeId,
  optionId,
  side,
  orderType: "LIMIT",
  limitPrice,
  shares,
  ...(clientOrderId === undefined ? {} : { clientOrderId }),
});

/** The REST record of the same side (GET /trades), without the fields only the channel has. */
function asRestTrade(message: UserTradeMessage): Trade {
  const { clientOrderId: _clientOrderId, seq: _seq, ...trade } = message;
  return trade;
}

async function restTrades(client: PredexClient): Promise<Trade[]> {
  return (await client.getTrades({ pageSize: 100 })).records;
}

describe("/socket/user-trades", () => {
  it("sends the maker and the taker each their own side, with role, fee and clientOrderId, seq increasing", async () => {
    await freshMarket();
    const seller = await followedUser("100");
    const buyer = await followedUser("100");
    // The seller's Yes shares come from a mint with a third user.
    const funder = await platform.fundedUser("100");
    await seller.client.createOrder(limit(market.yes, "BUY", 0.5, 10));
    await funder.client.createOrder(limit(market.no, "BUY", 0.5, 10));
    await waitUntil(() => seller.live.length === 1);

    const ask = await seller.client.createOrder(limit(market.yes, "SELL", 0.6, 5, "ask-1"));
    const lift = await buyer.client.createOrder(limit(market.yes, "BUY", 0.6, 5, "lift-1"));
    assert.equal(lift.status, "FILLED");
    await waitUntil(() => seller.live.length === 2 && buyer.live.length === 1);

    const makerSide = seller.live[1]!;
    const takerSide = buyer.live[0]!;
    assert.deepEqual(Object.keys(makerSide).sort(), [
      "clientOrderId",
      "fee",
      "marketId",
      "optionId",
      "orderId",
      "outcomeId",
      "price",
      "role",
      "seq",
      "shares",
      "side",
      "time",
      "tradeId",
    ]);
    assert.equal(makerSide.tradeId, takerSide.tradeId);
    assert.equal(makerSide.tradeId, lift.trades[0]!.tradeId);
    assert.deepEqual(
      [makerSide.role, makerSide.side, makerSide.orderId, makerSide.clientOrderId, makerSide.price],
      ["MAKER", "SELL", ask.orderId, "ask-1", "0.6"],
    );
    assert.deepEqual(
      [takerSide.role, takerSide.side, takerSide.orderId, takerSide.clientOrderId, takerSide.price],
      ["TAKER", "BUY", lift.orderId, "lift-1", "0.6"],
    );
    // 5 shares at 0.6 is 3 USDT: the maker pays 1% of it, the taker 2%.
    assert.deepEqual([makerSide.shares, makerSide.fee, takerSide.fee], ["5", "0.03", "0.06"]);
    assert.equal(makerSide.seq, takerSide.seq, "one command made both sides");
    assert.ok(makerSide.seq > seller.live[0]!.seq, "a later command has a later seq");
    assert.match(makerSide.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // The channel and GET /trades tell the same story.
    assert.deepEqual(
      asRestTrade(makerSide),
      (await restTrades(seller.client)).find((trade) => trade.tradeId === makerSide.tradeId),
    );
    assert.deepEqual(asRestTrade(takerSide), (await restTrades(buyer.client))[0]);

    // Another fill of the same resting order, later: a higher seq, the order's clientOrderId again.
    await seller.client.createOrder(limit(market.yes, "SELL", 0.6, 5, "ask-2"));
    await buyer.client.createOrder(limit(market.yes, "BUY", 0.6, 2));
    await waitUntil(() => seller.live.length === 3 && buyer.live.length === 2);
    assert.ok(seller.live[2]!.seq > makerSide.seq);
    // The buyer named no clientOrderId: the SDK gave the order its own, and the fill carries it.
    assert.equal(seller.live[2]!.clientOrderId, "ask-2");
    assert.match(buyer.live[1]!.clientOrderId ?? "", SDK_DEFAULT_CLIENT_ORDER_ID);
  });

  it("sends both buyers of a mint and both sellers of a merge their side, in their own option's terms", async () => {
    await freshMarket();
    const yesBuyer = await followedUser("100");
    const noBuyer = await followedUser("100");
    // Mint: a resting Yes bid at 0.7 meets a No buy at 0.3; 4 new pairs.
    const bid = await yesBuyer.client.createOrder(limit(market.yes, "BUY", 0.7, 4));
    const mint = await noBuyer.client.createOrder(limit(market.no, "BUY", 0.3, 4));
    assert.equal(mint.status, "FILLED");
    await waitUntil(() => yesBuyer.live.length === 1 && noBuyer.live.length === 1);
    const [maker, taker] = [yesBuyer.live[0]!, noBuyer.live[0]!];
    assert.deepEqual(
      [maker.role, maker.side, maker.optionId, maker.price, maker.orderId, maker.fee],
      ["MAKER", "BUY", market.yes, "0.7", bid.orderId, "0.028"],
    );
    assert.deepEqual(
      [taker.role, taker.side, taker.optionId, taker.price, taker.orderId, taker.fee],
      ["TAKER", "BUY", market.no, "0.3", mint.orderId, "0.024"],
    );
    // A maker order filled in full leaves the book: its clientOrderId (the SDK's own here) is still right.
    assert.match(maker.clientOrderId ?? "", SDK_DEFAULT_CLIENT_ORDER_ID);
    assert.equal(maker.clientOrderId, bid.clientOrderId);

    // Merge: the Yes holder offers 3 Yes at 0.65; the No holder sells 3 No at 0.35; 3 pairs burnt.
    await yesBuyer.client.createOrder(limit(market.yes, "SELL", 0.65, 3, "merge-ask"));
    const merge = await noBuyer.client.createOrder(limit(market.no, "SELL", 0.35, 3, "merge-hit"));
    assert.equal(merge.status, "FILLED");
    await waitUntil(() => yesBuyer.live.length === 2 && noBuyer.live.length === 2);
    const [mergeMaker, mergeTaker] = [yesBuyer.live[1]!, noBuyer.live[1]!];
    assert.deepEqual(
      [mergeMaker.role, mergeMaker.side, mergeMaker.price, mergeMaker.clientOrderId, mergeMaker.fee],
      ["MAKER", "SELL", "0.65", "merge-ask", "0.0195"],
    );
    assert.deepEqual(
      [mergeTaker.role, mergeTaker.side, mergeTaker.price, mergeTaker.clientOrderId, mergeTaker.fee],
      ["TAKER", "SELL", "0.35", "merge-hit", "0.021"],
    );
    assert.equal(mergeMaker.tradeId, mergeTaker.tradeId);
    assert.equal(mergeMaker.seq, mergeTaker.seq);
    assert.ok(mergeMaker.seq > maker.seq);
    assert.deepEqual((await restTrades(yesBuyer.client)).map((trade) => trade.tradeId).reverse(), [
      maker.tradeId,
      mergeMaker.tradeId,
    ]);
  });

  it("never sends another user's trades", async () => {
    await freshMarket();
    const bystander = await followedUser("100");
    const maker = await followedUser("100");
    const taker = await followedUser("100");
    await maker.client.createOrder(limit(market.yes, "BUY", 0.45, 6));
    await taker.client.createOrder(limit(market.no, "BUY", 0.55, 6));
    await waitUntil(() => maker.live.length === 1 && taker.live.length === 1);
    // The bystander's own trade, after the others': the first thing its socket ever brings.
    await bystander.client.createOrder(limit(market.yes, "BUY", 0.44, 1));
    await maker.client.createOrder(limit(market.no, "BUY", 0.56, 1));
    await waitUntil(() => bystander.live.length === 1);
    await waitUntil(() => maker.live.length === 2);
    assert.deepEqual(
      bystander.live.map((trade) => [trade.role, trade.orderId === maker.live[1]!.orderId]),
      [["MAKER", false]],
    );
    assert.equal(bystander.missed.length, 0);
    for (const followed of [bystander, maker, taker]) {
      const own = new Set((await restTrades(followed.client)).map((trade) => trade.orderId));
      for (const trade of followed.live) assert.ok(own.has(trade.orderId), "only the user's own orders");
    }
  });

  it("never sends a fill to a revoked session: the socket closes with 1011 and the SDK stops at the refused handshake", async () => {
    await freshMarket();
    const maker = await followedUser("100", { catchUp: false });
    const taker = await platform.fundedUser("100");
    await maker.client.createOrder(limit(market.yes, "BUY", 0.5, 1));
    await platform.revokeSessions(maker.userId);
    await taker.client.createOrder(limit(market.no, "BUY", 0.5, 1));
    await waitUntil(() => maker.subscription.state === "closed");
    assert.deepEqual(maker.live, []);
    assert.ok(
      maker.states.includes("backoff"),
      "the server closed the socket (1011) before the SDK's retry was refused",
    );
  });

  it("catches up after a reconnect with GET /trades: what was missed once, oldest first, then live again", async () => {
    await freshMarket();
    const proxy = await TcpProxy.start(platform.addresses.gateway);
    try {
      const trader = await followedUser("100", { baseUrl: proxy.url });
      const other = await platform.fundedUser("100");
      await trader.client.createOrder(limit(market.yes, "BUY", 0.4, 2));
      await other.client.createOrder(limit(market.no, "BUY", 0.6, 2));
      await waitUntil(() => trader.live.length === 1);

      // The network goes: fills made now never come over the socket.
      proxy.cut();
      await waitUntil(() => trader.subscription.state !== "live");
      await trader.client.createOrder(limit(market.yes, "BUY", 0.41, 3, "while-away-1"));
      await other.client.createOrder(limit(market.no, "BUY", 0.59, 3));
      await other.client.createOrder(limit(market.yes, "BUY", 0.42, 1));
      await trader.client.createOrder(limit(market.no, "BUY", 0.58, 1, "while-away-2"));
      assert.equal(trader.live.length, 1);

      proxy.restore();
      await waitUntil(() => trader.subscription.state === "live" && trader.missed.length === 2);
      const rest = (await restTrades(trader.client)).reverse();
      assert.deepEqual(
        trader.missed,
        rest.slice(1),
        "the missed fills, oldest first, as GET /trades has them",
      );
      assert.deepEqual(
        trader.missed.map((trade) => trade.role),
        ["MAKER", "TAKER"],
      );
      assert.ok(trader.states.includes("catchingUp"));

      // Live again, and nothing twice.
      await trader.client.createOrder(limit(market.yes, "BUY", 0.43, 1));
      await other.client.createOrder(limit(market.no, "BUY", 0.57, 1));
      await waitUntil(() => trader.live.length === 2);
      const seen = [
        ...trader.live.map((trade) => trade.tradeId),
        ...trader.missed.map((trade) => trade.tradeId),
      ];
      assert.equal(new Set(seen).size, seen.length);
      assert.equal(trader.subscription.newestTradeId, trader.live[1]!.tradeId);
    } finally {
      await proxy.close();
    }
  });

  it("reconnects and reads again when the catch-up read fails, so no fill is skipped", async () => {
    await freshMarket();
    const proxy = await TcpProxy.start(platform.addresses.gateway);
    try {
      // Read 1 learns the starting point at the first connect; read 2, the first catch-up, fails.
      const trader = await followedUser("100", { baseUrl: proxy.url, failRead: 2 });
      const other = await platform.fundedUser("100");
      proxy.cut();
      await waitUntil(() => trader.subscription.state !== "live");
      await trader.client.createOrder(limit(market.yes, "BUY", 0.5, 1, "away"));
      await other.client.createOrder(limit(market.no, "BUY", 0.5, 1));
      proxy.restore();
      await waitUntil(() => trader.missed.length === 1 && trader.subscription.state === "live");
      assert.equal(trader.missed[0]!.role, "MAKER");
      assert.ok(
        trader.states.filter((state) => state === "catchingUp").length >= 3,
        "first connect, the failed catch-up, the one that worked",
      );
    } finally {
      await proxy.close();
    }
  });

  it("starts after `sinceTradeId` when given one, and from now when not", async () => {
    await freshMarket();
    const trader = await followedUser("100", { catchUp: false });
    const other = await platform.fundedUser("100");
    for (const [yesPrice, noPrice] of [
      [0.3, 0.7],
      [0.31, 0.69],
      [0.32, 0.68],
    ] as const) {
      await trader.client.createOrder(limit(market.yes, "BUY", yesPrice, 1));
      await other.client.createOrder(limit(market.no, "BUY", noPrice, 1));
    }
    await waitUntil(() => trader.live.length === 3);
    trader.subscription.stop();

    // A process that kept the first trade's id reads the two after it, then follows live.
    const resumed = await followedUser("0", { user: trader, sinceTradeId: trader.live[0]!.tradeId });
    assert.deepEqual(
      resumed.missed.map((trade) => trade.tradeId),
      trader.live.slice(1).map((trade) => trade.tradeId),
    );
    // A new subscription without it starts from now: history stays in GET /trades.
    const fresh = await followedUser("0", { user: trader });
    assert.deepEqual(fresh.missed, []);
    assert.equal(fresh.subscription.newestTradeId, trader.live[2]!.tradeId);
    await trader.client.createOrder(limit(market.yes, "BUY", 0.33, 1));
    await other.client.createOrder(limit(market.no, "BUY", 0.67, 1));
    await waitUntil(() => resumed.live.length === 1 && fresh.live.length === 1);
    assert.deepEqual(resumed.live, fresh.live);
  });
});
