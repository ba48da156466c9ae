// The demo of `npm start` in process: a real platform on free ports and a temporary data dir, the
// demo partner, the seed (categories, markets of all three models and an exclusive event, funded
// users) and the market maker on short intervals. The bot must make a two-sided book and at least one trade within a
// bounded wait; a second start on the same data dir creates nothing twice; shutdown leaves no timer
// behind (the test process must be able to exit). The bot is a maker using the market makers' kit:
// the platform's own request counts show it quoting with create-orders, requoting with amend-order,
// pulling with cancel-all and never placing or cancelling one order at a time; its heartbeat
// really arms the dead-man's switch (stopped, its quotes leave the book by themselves).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { credentialsFileName, ensureDemoPartner, readDemoCredentials } from "../../src/cli/demo-partner.js";
import type { Order } from "../../src/contract/partner/trading.js";
import { demoCategories, demoMarkets, demoPeopleUsers } from "../../src/demo/content.js";
import {
  eventFairTicks,
  fairTicksMax,
  fairTicksMin,
  nextEventFairTicks,
  ticksPerUnit,
} from "../../src/demo/fair-price.js";
import { loopbackUrlOf } from "../../src/demo/loopback.js";
import {
  type MarketState,
  openOrdersPerMarketMax,
  planBook,
  quoteLevels,
  quoteLevelsPerSide,
} from "../../src/demo/market-maker.js";
import { type RunningDemo, runDemo } from "../../src/demo/run-demo.js";
import type { DemoLog } from "../../src/demo/seed.js";
import { PredexClient } from "../../src/sdk/client.js";
import { type Platform, startPlatform } from "../../src/server.js";
import { waitForValue } from "../support/wait-until.js";
import { testPlatformConfig } from "./harness.js";

const botTickMs = 50;
/** How long the bot may take to quote both sides and trade once. */
const liveBookWaitMs = 10_000;
const pollMs = 50;

interface DemoPlatform {
  readonly platform: Platform;
  readonly demo: RunningDemo;
  readonly warnings: string[];
  stop(): Promise<void>;
}

interface DemoBotSettings {
  readonly crossChance: number;
  readonly heartbeatTimeoutSeconds?: number;
}

async function startDemoPlatform(
  dataDir: string,
  bot: DemoBotSettings = { crossChance: 1 },
): Promise<DemoPlatform> {
  const platform = await startPlatform(testPlatformConfig(dataDir));
  const warnings: string[] = [];
  const log: DemoLog = { info: () => {}, warn: (message) => warnings.push(message) };
  try {
    const credentials = await ensureDemoPartner(platform, dataDir);
    assert.ok(credentials !== undefined, "the demo partner's credentials");
    const demo = await runDemo(
      {
        adminUrl: platform.addresses.admin,
        adminToken: platform.adminToken,
        gatewayUrl: platform.addresses.gateway,
      },
      credentials,
      { log, bot: true, botTickMs, ...bot },
    );
    return {
      platform,
      demo,
      warnings,
      // The order serve.ts keeps: the bot first, so no request reaches a closing platform.
      stop: async () => {
        await demo.stop();
        await platform.close();
      },
    };
  } catch (error) {
    await platform.close();
    throw error;
  }
}

function partnerClient(dataDir: string, gatewayUrl: string): PredexClient {
  const credentials = readDemoCredentials(join(dataDir, credentialsFileName));
  return new PredexClient({ baseUrl: gatewayUrl, credentials });
}

/**
 * Requests the platform answered on the signed gateway, by route template, from its /metrics (the
 * counts are the process's own: each start begins at zero).
 */
async function gatewayRequests(platform: Platform): Promise<Map<string, number>> {
  const response = await fetch(`${platform.addresses.admin}/metrics`, {
    headers: { authorization: `Bearer ${platform.adminToken}` },
  });
  assert.equal(response.status, 200);
  const counts = new Map<string, number>();
  for (const line of (await response.text()).split("\n")) {
    const match = /^predex_http_request_duration_seconds_count\{(.*)\} (\d+)$/.exec(line);
    if (match === null || !match[1]!.includes('surface="gateway"')) continue;
    const route = /route="([^"]*)"/.exec(match[1]!)![1]!;
    counts.set(route, (counts.get(route) ?? 0) + Number(match[2]));
  }
  return counts;
}

/** Every open order of the user (the maker has at most six a book, twelve books). */
async function openOrdersOf(client: PredexClient): Promise<Order[]> {
  return (await client.getOpenOrders({ pageSize: 100 })).records;
}

describe("the demo: seed, market maker, restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-demo-"));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  let firstMarketIds: string[] = [];
  /** The maker's open orders when the first run stopped. */
  let firstRunOrderIds = new Set<string>();

  it("seeds categories, markets of all three models and funded users; the bot quotes and trades", async () => {
    const started = await startDemoPlatform(dataDir);
    try {
      const { demo } = started;
      assert.equal(demo.seed.createdNow, true);
      assert.ok(demo.bot !== undefined, "the market maker runs");
      const client = partnerClient(dataDir, started.platform.addresses.gateway);

      const tree = await client.getCategoryTree({ language: "zh-CN" });
      const roots = demoCategories.filter((category) => category.parentKey === undefined);
      assert.deepEqual(
        tree.map((node) => node.nameDisplay),
        roots.map((category) => category.zhName),
      );
      const sports = tree.find((node) => node.name === "Sports");
      assert.deepEqual(
        sports?.children.map((node) => [node.name, node.nameDisplay]),
        [["Football", "足球"]],
      );

      const listed = await client.listMarkets({ pageSize: 100, status: "open" });
      assert.deepEqual(
        listed.records.map((record) => record.title).sort(),
        demoMarkets.map((m) => m.title).sort(),
      );
      assert.deepEqual(
        new Set(listed.records.map((record) => record.modelType)),
        new Set(["orderbook", "AMM", "parimutuel"]),
      );
      firstMarketIds = demo.seed.markets.map((market) => market.marketId).sort();
      assert.equal(firstMarketIds.length, demoMarkets.length);

      for (const person of demo.seed.people) {
        const [asset] = await person.client.getAssets();
        const funding = demoPeopleUsers.find(
          (user) => user.marchantUserId === person.marchantUserId,
        )!.fundingUsdt;
        assert.equal(Number(asset?.total), funding, person.marchantUserId);
      }

      const market = demo.example!.market;
      assert.equal(market.modelType, "orderbook");
      const book = await waitForValue(
        async () => {
          const current = await demo.seed.people[0]!.client.getBook({
            marketId: market.marketId,
            outcomeId: market.outcomeId,
          });
          return current.bids.length > 0 && current.asks.length > 0 ? current : undefined;
        },
        { what: "bids and asks", timeoutMs: liveBookWaitMs, intervalMs: pollMs },
      );
      assert.ok(Number(book.bids[0]!.price) < Number(book.asks[0]!.price), "the book is not crossed");
      const trades = await waitForValue(
        async () => {
          const page = await demo.seed.taker.client.getTrades({ marketId: market.marketId });
          return page.records.length > 0 ? page.records : undefined;
        },
        { what: "a trade", timeoutMs: liveBookWaitMs, intervalMs: pollMs },
      );
      assert.equal(trades[0]!.role, "TAKER");

      // The exclusive event: four outcomes, each one's book quoted, their Yes prices adding up to about 1.
      const event = demo.seed.markets.find((seeded) => (seeded.outcomes?.length ?? 0) > 1);
      assert.ok(event !== undefined, "an exclusive event is seeded");
      assert.equal(event.outcomes!.length, 4);
      const operator = await fetch(`${started.platform.addresses.admin}/admin/markets/${event.marketId}`, {
        headers: { authorization: `Bearer ${started.platform.adminToken}` },
      });
      assert.equal(((await operator.json()) as { data: { exclusive: boolean } }).data.exclusive, true);
      const mids = await waitForValue(
        async () => {
          const books = await Promise.all(
            event.outcomes!.map((outcome) =>
              demo.seed.people[0]!.client.getBook({ marketId: event.marketId, outcomeId: outcome.outcomeId }),
            ),
          );
          if (!books.every((book) => book.bids.length > 0 && book.asks.length > 0)) return undefined;
          return books.map((book) => (Number(book.bids[0]!.price) + Number(book.asks[0]!.price)) / 2);
        },
        { what: "every outcome quoted", timeoutMs: liveBookWaitMs, intervalMs: pollMs },
      );
      const yesSum = mids.reduce((sum, mid) => sum + mid, 0);
      assert.ok(Math.abs(yesSum - 1) <= 0.05, `the Yes prices add up to ${yesSum}`);
      await demo.stop();
      firstRunOrderIds = new Set((await openOrdersOf(demo.seed.maker.client)).map((order) => order.orderId));
      assert.ok(firstRunOrderIds.size > 0, "the bot leaves its quotes when it stops");
    } finally {
      await started.stop();
    }
    assert.deepEqual(started.warnings, [], "no refusals on a fresh platform");
  });

  it("a second start on the same data dir creates nothing twice and the bot goes on", async () => {
    // No taker this time: every order request the platform sees is the maker's.
    const started = await startDemoPlatform(dataDir, { crossChance: 0, heartbeatTimeoutSeconds: 5 });
    try {
      const { demo } = started;
      assert.equal(demo.seed.createdNow, false);
      assert.deepEqual(demo.seed.markets.map((market) => market.marketId).sort(), firstMarketIds);
      const client = partnerClient(dataDir, started.platform.addresses.gateway);
      const listed = await client.listMarkets({ pageSize: 100 });
      assert.equal(listed.total, demoMarkets.length);
      const tree = await client.getCategoryTree({ language: "en-US" });
      const nodes = tree.flatMap((node) => [node, ...node.children]);
      assert.equal(nodes.length, demoCategories.length);
      for (const person of demo.seed.people) {
        const [asset] = await person.client.getAssets();
        const funding = demoPeopleUsers.find(
          (user) => user.marchantUserId === person.marchantUserId,
        )!.fundingUsdt;
        assert.equal(Number(asset?.total), funding, `${person.marchantUserId} was funded once`);
      }
      // The maker's open orders stay within its bound per market while it keeps replacing them.
      await waitForValue(async () => (demo.bot!.ticks >= 3 ? true : undefined), {
        what: "a few more ticks",
        timeoutMs: liveBookWaitMs,
        intervalMs: pollMs,
      });
      const open = await demo.seed.maker.client.getOpenOrders({ marketId: demo.example!.market.marketId });
      assert.ok(open.total <= openOrdersPerMarketMax, `maker has ${open.total} open orders`);

      // The first run's quotes were pulled when this one started (amends keep an order's id, so
      // an id still open from then would be a quote left behind).
      const openNow = await openOrdersOf(demo.seed.maker.client);
      assert.ok(openNow.length > 0, "the maker quotes");
      const leftBehind = openNow.filter((order) => firstRunOrderIds.has(order.orderId));
      assert.deepEqual(leftBehind, [], "the first run's quotes were pulled");

      // The kit in use, as the platform counted the requests: quotes in batches, requotes by
      // amend, the pull by cancel-all, the switch armed; never one order placed or cancelled alone.
      const requests = await waitForValue(
        async () => {
          const counts = await gatewayRequests(started.platform);
          return (counts.get("/ordering/amend-order") ?? 0) > 0 ? counts : undefined;
        },
        { what: "a requote by amend", timeoutMs: liveBookWaitMs, intervalMs: pollMs },
      );
      assert.ok((requests.get("/ordering/create-orders") ?? 0) > 0, "quotes go out with create-orders");
      assert.ok((requests.get("/ordering/cancel-all") ?? 0) > 0, "the start pulls with cancel-all");
      assert.ok((requests.get("/ordering/heartbeat") ?? 0) > 0, "the switch is armed");
      assert.equal(requests.get("/ordering/create-order"), undefined, "no order placed alone");
      assert.equal(requests.get("/ordering/cancel-order"), undefined, "no order cancelled alone");

      // The dead-man's switch: the bot stops (as if its process died) and its quotes leave the
      // book within the timeout, without any request.
      await demo.stop();
      await waitForValue(
        async () => ((await openOrdersOf(demo.seed.maker.client)).length === 0 ? true : undefined),
        { what: "the switch pulls the quotes", timeoutMs: liveBookWaitMs, intervalMs: pollMs },
      );
    } finally {
      await started.stop();
    }
    // Only timers someone forgot keep the loop alive; an unref'd request timeout does not count.
    await sleep(10);
    assert.deepEqual(
      process.getActiveResourcesInfo().filter((resource) => resource === "Timeout"),
      [],
      "no timer left behind",
    );
  });
});

describe("the demo's small rules", () => {
  it("reaches a listener only through loopback", () => {
    assert.equal(loopbackUrlOf("http://0.0.0.0:8080"), "http://127.0.0.1:8080");
    assert.equal(loopbackUrlOf("http://[::]:8080"), "http://[::1]:8080");
    assert.equal(loopbackUrlOf("https://127.0.0.1:8443"), "https://127.0.0.1:8443");
    assert.equal(loopbackUrlOf("http://10.0.0.5:8080"), undefined);
    assert.equal(loopbackUrlOf("http://example.com:8080"), undefined);
  });

  it("quotes both sides inside (0, 1), best levels first, never crossed", () => {
    for (const fairTicks of [5, 50, 95]) {
      const levels = quoteLevels(fairTicks);
      assert.equal(levels.length, quoteLevelsPerSide * 2);
      assert.ok(levels.every((level) => level.ticks >= 1 && level.ticks <= 99));
      const bids = levels.filter((level) => level.side === "bid").map((level) => level.ticks);
      const asks = levels.filter((level) => level.side === "ask").map((level) => level.ticks);
      assert.ok(Math.max(...bids) < fairTicks && Math.min(...asks) > fairTicks);
      assert.deepEqual(
        levels.slice(0, 2).map((level) => level.side),
        ["bid", "ask"],
      );
    }
  });

  it("requotes a one-tick move with two amends, the quote moving away from the spread first", () => {
    const market = { marketId: "1", outcomeId: "2", yesOptionId: "3", noOptionId: "4", yesPrice: 0.5 };
    const state: MarketState = { market, fairTicks: 50, takerYesShares: 0, takerNoShares: 0 };
    const resting = restingQuotes(market, 50);
    assert.deepEqual(planBook(state, resting), {
      state,
      pull: false,
      amends: [],
      cancels: [],
      creates: [],
      openCount: 6,
    });
    // Up a tick: the Yes bid at 0.47 goes to 0.50 (toward the spread), the ask at 0.51 (a No bid
    // at 0.49) goes out to 0.54 (No at 0.46): the ask first, so the new bid never meets it.
    state.fairTicks = 51;
    const up = planBook(state, resting);
    assert.equal(up.pull, false);
    assert.deepEqual(
      up.amends.map(({ order, to }) => [order.limitPrice, to.limitPrice]),
      [
        ["0.49", 0.46],
        ["0.47", 0.5],
      ],
    );
    assert.deepEqual([up.cancels, up.creates], [[], []]);
    // A partly filled quote at a wanted level stays as it is; one that filled out leaves a level
    // to create.
    const partlyFilled = resting.map((order) =>
      order.limitPrice === "0.49" && order.optionId === "3" ? { ...order, filledShares: "5" } : order,
    );
    state.fairTicks = 50;
    assert.deepEqual(planBook(state, partlyFilled).amends, []);
    const oneFilledOut = planBook(state, resting.slice(1));
    assert.deepEqual(
      oneFilledOut.creates.map((quote) => [quote.optionId, quote.limitPrice, quote.shares]),
      [["3", 0.49, 20]],
    );
    // A jump of three ticks leaves no quote at a wanted level: the book is pulled and quoted afresh.
    state.fairTicks = 56;
    const jump = planBook(state, resting);
    assert.equal(jump.pull, true);
    assert.equal(jump.creates.length, 6);
    // Another book's orders (an exclusive event's books share the market id) are not this book's.
    const otherBook = resting.map((order) => ({ ...order, outcomeId: "9" }));
    assert.equal(planBook(state, otherBook).openCount, 0);
  });

  it("walks an exclusive event's fair prices together, always adding up to 1", () => {
    assert.deepEqual(eventFairTicks([0.4, 0.3, 0.2, 0.1]), [40, 30, 20, 10]);
    // Last prices that do not add up to 1 are scaled to.
    assert.equal(
      eventFairTicks([0.45, 0.35, 0.25, 0.12]).reduce((sum, ticks) => sum + ticks, 0),
      ticksPerUnit,
    );
    let seed = 7;
    const random = () => {
      seed = (seed * 16_807) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    let ticks = eventFairTicks([0.4, 0.3, 0.2, 0.1]);
    let moved = 0;
    for (let step = 0; step < 2_000; step += 1) {
      const next = nextEventFairTicks(ticks, random);
      if (next.some((each, index) => each !== ticks[index])) moved += 1;
      ticks = next;
      assert.equal(
        ticks.reduce((sum, each) => sum + each, 0),
        ticksPerUnit,
      );
      assert.ok(ticks.every((each) => each >= fairTicksMin && each <= fairTicksMax));
    }
    assert.ok(moved > 100, `the prices moved ${moved} times`);
  });
});

/** The six quotes the bot keeps around `fairTicks`, as open orders. */
function restingQuotes(
  market: { marketId: string; outcomeId: string; yesOptionId: string; noOptionId: string },
  fairTicks: number,
): Order[] {
  return quoteLevels(fairTicks).map((level, index) => ({
    orderId: String(100 + index),
    clientOrderId: null,
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId: level.side === "bid" ? market.yesOptionId : market.noOptionId,
    status: "OPEN",
    side: "BUY",
    orderType: "LIMIT",
    timeInForce: "GTC",
    limitPrice: String((level.side === "bid" ? level.ticks : ticksPerUnit - level.ticks) / ticksPerUnit),
    shares: String(level.shares),
    amount: null,
    filledShares: "0",
    avgPrice: null,
    fee: "0",
    expiresAt: null,
    createdAt: "2026-01-01T00:00:00Z",
    trades: [],
  }));
}
