// The demo of `npm start` in process: a real platform on free ports and a temporary data dir, the
// demo partner, the seed (categories, markets of all three models and an exclusive event, funded
// users) and the market maker on short intervals. The bot must make a two-sided book and at least one trade within a
// bounded wait; a second start on the same data dir creates nothing twice; shutdown leaves no timer
// behind (the test process must be able to exit).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { credentialsFileName, ensureDemoPartner, readDemoCredentials } from "../../src/cli/demo-partner.js";
import { demoCategories, demoMarkets, demoPeopleUsers } from "../../src/demo/content.js";
import {
  eventFairTicks,
  fairTicksMax,
  fairTicksMin,
  nextEventFairTicks,
  ticksPerUnit,
} from "../../src/demo/fair-price.js";
import { loopbackUrlOf } from "../../src/demo/loopback.js";
import { openOrdersPerMarketMax, quoteLevels, quoteLevelsPerSide } from "../../src/demo/market-maker.js";
import { type RunningDemo, runDemo } from "../../src/demo/run-demo.js";
import type { DemoLog } from "../../src/demo/seed.js";
import { PredexClient } from "../../src/sdk/client.js";
import { type Platform, startPlatform } from "../../src/server.js";
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

async function startDemoPlatform(dataDir: string): Promise<DemoPlatform> {
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
      { log, bot: true, botTickMs, crossChance: 1 },
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

async function until<Value>(what: string, probe: () => Promise<Value | undefined>): Promise<Value> {
  const deadline = Date.now() + liveBookWaitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(pollMs);
  }
}

describe("the demo: seed, market maker, restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-demo-"));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  let firstMarketIds: string[] = [];

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
      const book = await until("bids and asks", async () => {
        const current = await demo.seed.people[0]!.client.getBook({
          marketId: market.marketId,
          outcomeId: market.outcomeId,
        });
        return current.bids.length > 0 && current.asks.length > 0 ? current : undefined;
      });
      assert.ok(Number(book.bids[0]!.price) < Number(book.asks[0]!.price), "the book is not crossed");
      const trades = await until("a trade", async () => {
        const page = await demo.seed.taker.client.getTrades({ marketId: market.marketId });
        return page.records.length > 0 ? page.records : undefined;
      });
      assert.equal(trades[0]!.role, "TAKER");

      // The exclusive event: four outcomes, each one's book quoted, their Yes prices adding up to about 1.
      const event = demo.seed.markets.find((seeded) => (seeded.outcomes?.length ?? 0) > 1);
      assert.ok(event !== undefined, "an exclusive event is seeded");
      assert.equal(event.outcomes!.length, 4);
      const operator = await fetch(`${started.platform.addresses.admin}/admin/markets/${event.marketId}`, {
        headers: { authorization: `Bearer ${started.platform.adminToken}` },
      });
      assert.equal(((await operator.json()) as { data: { exclusive: boolean } }).data.exclusive, true);
      const mids = await until("every outcome quoted", async () => {
        const books = await Promise.all(
          event.outcomes!.map((outcome) =>
            demo.seed.people[0]!.client.getBook({ marketId: event.marketId, outcomeId: outcome.outcomeId }),
          ),
        );
        if (!books.every((book) => book.bids.length > 0 && book.asks.length > 0)) return undefined;
        return books.map((book) => (Number(book.bids[0]!.price) + Number(book.asks[0]!.price)) / 2);
      });
      const yesSum = mids.reduce((sum, mid) => sum + mid, 0);
      assert.ok(Math.abs(yesSum - 1) <= 0.05, `the Yes prices add up to ${yesSum}`);
    } finally {
      await started.stop();
    }
    assert.deepEqual(started.warnings, [], "no refusals on a fresh platform");
  });

  it("a second start on the same data dir creates nothing twice and the bot goes on", async () => {
    const started = await startDemoPlatform(dataDir);
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
      await until("a few more ticks", async () => (demo.bot!.ticks >= 3 ? true : undefined));
      const open = await demo.seed.maker.client.getOpenOrders({ marketId: demo.example!.market.marketId });
      assert.ok(open.total <= openOrdersPerMarketMax, `maker has ${open.total} open orders`);
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
