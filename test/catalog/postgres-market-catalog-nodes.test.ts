// The PostgreSQL catalogue across nodes: an API node (its own pool, no engine) hears the markets an
// engine commit touched, after the commit and only then; after its listening connection is cut it
// hears "anything may have changed"; clicks flushed by several nodes while the engine heats the same
// market are all counted (no update lost).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import {
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
  limitOrderCommand,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import {
  openPostgresPool,
  type PostgresClient,
  type PostgresPool,
} from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import {
  applyPostgresExchangeMigrations,
  createPostgresExchangeProjectors,
} from "../../src/store/postgres/exchange-projectors.js";
import {
  acquireLeadership,
  engineApplicationName,
  type Leadership,
} from "../../src/store/postgres/leadership.js";
import {
  marketsChangedChannel,
  openPostgresMarketCatalog,
  type PostgresMarketCatalog,
} from "../../src/store/postgres/market-catalog.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const unit = 100_000_000n;
const nowMs = 1_800_000_000_000;
const skipReason = postgresSkipReason();

describe("PostgreSQL catalogue across nodes", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  let url: string;
  const pools: PostgresPool[] = [];
  let leadership: Leadership;
  let engineCatalog: PostgresMarketCatalog;
  let apiCatalog: PostgresMarketCatalog;
  let engine: Engine<ExchangeState, ExchangeCommand, ExchangeEvent, PostgresClient>;
  const heard: (readonly number[] | undefined)[] = [];
  const pool = (name: string) => {
    const opened = openPostgresPool({ url, applicationName: name });
    pools.push(opened);
    return opened;
  };
  /** The test's own sessions, for what it asks of pg_stat_activity. */
  let admin: PostgresPool;
  /** The API node's listening session: the one whose last statement was its LISTEN. */
  const listeningSession = `pid <> pg_backend_pid() AND query = 'LISTEN ${marketsChangedChannel}'`;

  before(async () => {
    cluster = await startPostgresCluster();
    url = await cluster.createDatabase("catalog_nodes");
    const enginePool = pool(engineApplicationName("engine-1"));
    await applyPostgresExchangeMigrations(enginePool);
    leadership = await acquireLeadership(enginePool, { url, nodeId: "engine-1" });
    engineCatalog = await openPostgresMarketCatalog(enginePool);
    engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, PostgresClient>({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(enginePool, leadership),
      projectors: createPostgresExchangeProjectors({ projectors: [engineCatalog.projector] }),
      clock: () => nowMs,
      onFatal: (error) => {
        throw error;
      },
    });
    apiCatalog = await openPostgresMarketCatalog(pool("predex-api-1"), { reconnectDelayMs: 50 });
    apiCatalog.onMarketsChanged((marketIds) =>
      heard.push(marketIds === undefined ? undefined : [...marketIds]),
    );
    // The API node starts listening at its first listener, without waiting: a commit before its LISTEN
    // is in place is not heard (a fixed 300 ms wait for it failed the first test whenever the
    // connection took longer). The LISTEN is in place once a session has finished running it.
    admin = pool("predex-test-admin");
    await waitUntil(
      async () =>
        (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE ${listeningSession} AND state = 'idle'`))
          .rows.length === 1,
      { what: "the API node listens", timeoutMs: 30_000 },
    );
  });
  after(async () => {
    await engine?.close();
    await apiCatalog?.close();
    await engineCatalog?.close();
    await leadership?.release();
    for (const opened of pools) await opened.end();
    await cluster?.stop();
  });

  const createOpenMarket = async (title: string) => {
    const created = await engine.submit(
      createMarketCommand({
        title,
        startTimeMs: nowMs - 1,
        endTimeMs: nowMs + 86_400_000,
        details: { outcomes: [], categoryId: "1" },
      }),
    );
    assert.ok(created.ok && created.events[0]?.type === "MarketCreated");
    const market = created.events[0];
    assert.ok((await engine.submit({ type: "OpenMarket", marketId: market.marketId })).ok);
    return market;
  };

  it("tells another node's listeners which markets a commit touched", async () => {
    const market = await createOpenMarket("Heard on every node");
    await waitUntil(() => heard.some((ids) => ids?.includes(market.marketId) === true), {
      what: "the notification",
      timeoutMs: 10_000,
      intervalMs: 10,
    });
    // The API node reads what the engine committed.
    assert.deepEqual(
      (await apiCatalog.store.search({ keyword: "heard", searchBy: "Market" }, { page: 1, pageSize: 10 }))
        .records,
      [market.marketId],
    );
  });

  it("tells its listeners that anything may have changed after its connection was cut", async () => {
    const before = heard.length;
    const ended = await admin.query<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE ${listeningSession}`,
    );
    assert.equal(ended.rows.length, 1, "the API node's listening session");
    await waitUntil(() => heard.slice(before).includes(undefined), {
      what: "the reconnection's 'anything'",
      timeoutMs: 10_000,
      intervalMs: 10,
    });
    const market = await createOpenMarket("Heard after the reconnection");
    await waitUntil(() => heard.some((ids) => ids?.includes(market.marketId) === true), {
      what: "a notification after reconnecting",
      timeoutMs: 10_000,
      intervalMs: 10,
    });
  });

  it("counts every click flushed by several nodes while the engine heats the same market", async () => {
    const market = await createOpenMarket("Clicked everywhere");
    const outcome = market.outcomes[0]!;
    for (const userId of [1, 2]) {
      assert.ok(
        (await engine.submit({ type: "Deposit", userId, amount: 1_000n * unit, txHash: `0xc${userId}` })).ok,
      );
    }
    const nodes = [apiCatalog, await openPostgresMarketCatalog(pool("predex-api-2")), engineCatalog];
    const trades: Promise<unknown>[] = [];
    const flushes: Promise<unknown>[] = [];
    for (let round = 0; round < 20; round += 1) {
      for (const node of nodes) flushes.push(node.store.addClicks(new Map([[market.marketId, 1]]), nowMs));
      const optionId = outcome.options[round % 2]!.optionId;
      trades.push(
        engine.submit(
          limitOrderCommand({
            userId: 1 + (round % 2),
            marketId: market.marketId,
            outcomeId: outcome.outcomeId,
            optionId,
            side: "BUY",
            limitPrice: 50_000_000n,
            shares: unit,
          }),
        ),
      );
    }
    await Promise.all([...flushes, ...trades]);
    const stats = await apiCatalog.store.stats(market.marketId);
    assert.equal(stats.clicks, 60);
    // 60 clicks (1 each) and 20 one-share trades at 0.5 each side (10 minted pairs, 1 USDT each).
    const expected = 60 + 10;
    assert.ok(
      Math.abs(2 ** (stats.heat! - (nowMs - Date.UTC(2026, 0, 1)) / 86_400_000) - expected) < 1e-6,
      String(stats.heat),
    );
  });

  it("heats a market in the batch's one statement, adding clicks flushed meanwhile by another node", async () => {
    const market = await createOpenMarket("Heated in one statement");
    const outcome = market.outcomes[0]!;
    for (const userId of [3, 4]) {
      assert.ok(
        (await engine.submit({ type: "Deposit", userId, amount: 1_000n * unit, txHash: `0xh${userId}` })).ok,
      );
    }
    // Each round mints one pair (1 USDT of volume) in a batch of its own.
    const mintOnePair = async () => {
      for (const [userId, optionId] of [
        [3, outcome.options[0]!.optionId],
        [4, outcome.options[1]!.optionId],
      ] as const) {
        const placed = await engine.submit(
          limitOrderCommand({
            userId,
            marketId: market.marketId,
            outcomeId: outcome.outcomeId,
            optionId,
            side: "BUY",
            limitPrice: 50_000_000n,
            shares: unit,
          }),
        );
        assert.ok(placed.ok);
      }
    };
    // Every statement any connection sends, seen on the way (the engine's go on a pooled connection).
    const oneStatements: string[] = [];
    const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const query = prototype.query;
    prototype.query = function (this: unknown, ...args: unknown[]) {
      const text = (args[0] as { text?: unknown } | null)?.text;
      if (typeof text === "string" && text.includes("catalog_heated")) oneStatements.push(text);
      return query.apply(this, args);
    };
    try {
      await mintOnePair(); // the first heat of this market: read locked, in a transaction
      await mintOnePair(); // from the heat written last: one statement
      await apiCatalog.store.addClicks(new Map([[market.marketId, 5]]), nowMs);
      await mintOnePair(); // the clicks changed the heat: the statement adds to the row's heat
      await mintOnePair(); // and goes on from what that wrote
    } finally {
      prototype.query = query;
    }
    assert.ok(
      oneStatements.length >= 3,
      `the heats rode in the batches' one statement (${oneStatements.length})`,
    );
    const stats = await apiCatalog.store.stats(market.marketId);
    assert.equal(stats.clicks, 5);
    // 5 clicks of 1 USDT each and 4 minted pairs of 1 USDT each.
    const expected = 5 + 4;
    const sum = 2 ** (stats.heat! - (nowMs - Date.UTC(2026, 0, 1)) / 86_400_000);
    assert.ok(Math.abs(sum - expected) < 1e-6, `${sum} ≠ ${expected}`);
  });
});
