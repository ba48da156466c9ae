// GET /prices-history on the public host: no credentials, a bare {history:[{t,p}]} with t in unix
// seconds and p a number; trade prices plus a sampled point per option per interval while the
// market is open; bad parameters are 400 {error}, an unknown asset 404 {error}.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type RealtimePlatform, startRealtimePlatform } from "../realtime/fixtures.js";
import { waitUntil } from "../support/wait-until.js";

let platform: RealtimePlatform;
let market: Awaited<ReturnType<RealtimePlatform["openMarket"]>>;

before(async () => {
  // Sampling every 100 ms stands in for the production minute.
  platform = await startRealtimePlatform({ priceSampleIntervalMs: 100 });
  market = await platform.openMarket();
});
after(() => platform.close());

async function history(query: Record<string, string>) {
  const search = new URLSearchParams(query).toString();
  return platform.raw("public", { path: `/prices-history?${search}` });
}

describe("GET /prices-history", () => {
  it("has a sampled point per option while the market is open, even without trades", async () => {
    await waitUntil(
      async () =>
        ((await history({ market: market.yesAsset })).json as { history: unknown[] }).history.length > 0,
    );
    const yes = (await history({ market: market.yesAsset })).json as { history: { t: number; p: number }[] };
    const no = (await history({ market: market.noAsset })).json as { history: { t: number; p: number }[] };
    const point = yes.history[0]!;
    assert.ok(Number.isInteger(point.t) && Math.abs(point.t - Date.now() / 1000) < 60, `t ${point.t}`);
    assert.equal(point.p, 0.5);
    assert.equal(no.history[0]!.p, 0.5);
  });

  it("returns trade prices, oldest first, bare (no envelope) and without credentials", async () => {
    const maker = await platform.fundedUser();
    const taker = await platform.fundedUser();
    const place = (client: typeof maker.client, optionId: string, limitPrice: number) =>
      client.createOrder({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId,
        side: "BUY",
        orderType: "LIMIT",
        limitPrice,
        shares: 5,
      });
    await place(maker.client, market.yes, 0.62);
    await place(taker.client, market.no, 0.38);
    const response = await history({ market: market.yesAsset, interval: "1h", fidelity: "1" });
    assert.equal(response.status, 200);
    const body = response.json as { history: { t: number; p: number }[] };
    assert.deepEqual(Object.keys(body), ["history"]);
    // The last point of the current minute is the trade at 0.62 (or a later sample of that price).
    assert.equal(body.history.at(-1)!.p, 0.62);
    const times = body.history.map((point) => point.t);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    );
    const noSide = (await history({ market: market.noAsset, interval: "1h" })).json as {
      history: { p: number }[];
    };
    assert.equal(noSide.history.at(-1)!.p, 0.38);
  });

  it("keeps one point per fidelity bucket", async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The raw points first: the sampler (every 100 ms) goes on adding points, so the bucketed read
    // after them holds every minute they have, and may hold one begun between the two reads.
    const raw = (await history({ market: market.yesAsset, startTs: "0" })).json as {
      history: { t: number }[];
    };
    const all = (await history({ market: market.yesAsset, interval: "max" })).json as {
      history: { t: number }[];
    };
    const minuteOf = (point: { t: number }) => Math.floor(point.t / 60);
    const rawMinutes = new Set(raw.history.map(minuteOf));
    const lastRawMinute = Math.max(...rawMinutes);
    const allMinutes = all.history.map(minuteOf);
    assert.equal(new Set(allMinutes).size, allMinutes.length, "one point a minute");
    for (const minute of rawMinutes) assert.ok(allMinutes.includes(minute), `minute ${minute} has its point`);
    assert.ok(
      allMinutes.every((minute) => rawMinutes.has(minute) || minute > lastRawMinute),
      "no point for a minute without samples",
    );
    const coarse = (await history({ market: market.yesAsset, interval: "all", fidelity: "1440" })).json as {
      history: unknown[];
    };
    assert.ok(coarse.history.length <= 2);
  });

  it("honours startTs and endTs in unix seconds", async () => {
    const future = String(Math.floor(Date.now() / 1000) + 3_600);
    const later = String(Number(future) + 3_600);
    const empty = (await history({ market: market.yesAsset, startTs: future, endTs: later })).json as {
      history: unknown[];
    };
    assert.deepEqual(empty.history, []);
    const upToNow = (
      await history({ market: market.yesAsset, startTs: "0", endTs: String(Math.floor(Date.now() / 1000)) })
    ).json as { history: unknown[] };
    assert.ok(upToNow.history.length > 0);
  });

  const badRequests: [string, Record<string, string>, string][] = [
    ["a missing market", {}, "market is required"],
    ["an unknown interval", { interval: "2h" }, "interval must be one of 1h, 6h, 1d, 1w, 1m, max, all"],
    ["a fidelity of 0", { fidelity: "0" }, "fidelity must be a positive integer number of minutes"],
    ["a fractional fidelity", { fidelity: "1.5" }, "fidelity must be a positive integer number of minutes"],
    [
      "a startTs that is not unix seconds",
      { startTs: "yesterday" },
      "startTs must be unix seconds (a non-negative integer)",
    ],
    [
      "an endTs that is not unix seconds",
      { endTs: "-5" },
      "endTs must be unix seconds (a non-negative integer)",
    ],
    [
      "interval with startTs",
      { interval: "1d", startTs: "0" },
      "interval cannot be combined with startTs or endTs",
    ],
    ["startTs after endTs", { startTs: "2000", endTs: "1000" }, "startTs must not be after endTs"],
  ];
  for (const [name, query, error] of badRequests) {
    it(`answers ${name} with 400 {error}`, async () => {
      const withMarket = name === "a missing market" ? query : { market: market.yesAsset, ...query };
      const response = await history(withMarket);
      assert.equal(response.status, 400);
      assert.deepEqual(response.json, { error });
    });
  }

  it("answers an unknown asset with 404 {error}", async () => {
    const response = await history({ market: "12345678901234567890000000099999" });
    assert.equal(response.status, 404);
    assert.deepEqual(response.json, { error: "market not found" });
  });
});
