// The ConsoleQueries contract (src/store/console-queries.ts), run on SQLite and PostgreSQL
// (test/store/console-queries.test.ts) over rows seeded in the identity and exchange tables: recent
// trades in the asked option's terms; partners, users (filters, active sessions) and markets
// (status, title or id) newest first; deposits newest first; totals; a page past the end is empty
// and still counts.

import assert from "node:assert/strict";
import { afterEach, it } from "node:test";
import type { ConsoleQueries } from "../../../src/store/console-queries.js";
import type { PortHarness, PortInstance, SqlSeed } from "../../support/port-harness.js";

const nowMs = 1_800_000_000_000;
const unit = 100_000_000n;

async function seedIdentity(seed: SqlSeed): Promise<void> {
  for (const [partnerId, name] of [
    [1, "acme"],
    [2, "globex"],
    [3, "initech"],
  ] as const) {
    await seed.insert("identity_partners", {
      partner_id: partnerId,
      name,
      app_key: `key-${name}`,
      app_secret_sealed: "sealed",
      api_key_sha256: `sha-${name}`,
      commission_rate_bps: partnerId * 10,
      webhook_url: partnerId === 2 ? "https://globex.example/hook" : null,
      created_at_ms: nowMs + partnerId,
    });
  }
  const users: [number, number, string, string][] = [
    [1, 1, "alice", "alice@example.com"],
    [2, 1, "bob", "bob@example.com"],
    [3, 2, "al_%x", "carol@example.com"],
    [4, 2, "dave", "ALBERT@example.com"],
  ];
  for (const [userId, partnerId, marchantUserId, email] of users) {
    await seed.insert("identity_users", {
      user_id: userId,
      partner_id: partnerId,
      marchant_user_id: marchantUserId,
      email,
      user_name: `user${userId}`,
      avatar_url: "",
      created_at_ms: nowMs + userId,
    });
  }
  const session = (token: string, userId: number, expiresAtMs: number, revokedAtMs: number | null) =>
    seed.insert("identity_sessions", {
      token_sha256: token,
      user_id: userId,
      partner_id: userId <= 2 ? 1 : 2,
      created_at_ms: nowMs,
      expires_at_ms: expiresAtMs,
      revoked_at_ms: revokedAtMs,
    });
  await session("s1", 1, nowMs + 1_000, null);
  await session("s2", 1, nowMs + 1_000, null);
  await session("s3", 1, nowMs + 1_000, nowMs);
  await session("s4", 1, nowMs - 1, null);
  await session("s5", 3, nowMs + 1_000, null);
}

async function seedMarkets(seed: SqlSeed): Promise<void> {
  const markets: [number, string, string][] = [
    [11, "Will it rain in Paris?", "open"],
    [12, "Draft: 100% sure_thing", "draft"],
    [13, "Will BITCOIN pass 100k?", "closed"],
    [14, "Rain in London?", "open"],
  ];
  for (const [marketId, title, status] of markets) {
    await seed.insert("markets", {
      market_id: marketId,
      title,
      model_type: "ORDERBOOK",
      status,
      category_id: marketId === 11 ? "7" : null,
      description: "",
      rules: "",
      tags: "",
      creator_id: null,
      start_time_ms: marketId === 12 ? null : nowMs - 1_000,
      end_time_ms: marketId === 12 ? null : nowMs + 1_000,
      created_at_ms: nowMs + marketId,
      volume: BigInt(marketId) * unit,
      exclusive: marketId === 14 ? 1 : 0,
    });
  }
}

async function seedTrades(seed: SqlSeed): Promise<void> {
  // Option 101 (YES) and 102 (NO) of outcome 1001 in market 11. Each trade has a price point per
  // option, in that option's terms; the TAKER row says which option the taker traded and how.
  const trades: [number, number, "BUY" | "SELL", bigint, number][] = [
    [1, 101, "BUY", 60_000_000n, nowMs + 10],
    [2, 102, "BUY", 30_000_000n, nowMs + 20],
    [3, 101, "SELL", 65_000_000n, nowMs + 20],
    [4, 102, "SELL", 45_000_000n, nowMs + 40],
  ];
  for (const [tradeId, optionId, side, price, timeMs] of trades) {
    for (const role of ["TAKER", "MAKER"]) {
      await seed.insert("exchange_trades", {
        trade_id: tradeId,
        role,
        order_id: tradeId * 10 + (role === "TAKER" ? 1 : 2),
        user_id: role === "TAKER" ? 1 : 2,
        market_id: 11,
        outcome_id: 1001,
        option_id: role === "TAKER" ? optionId : optionId === 101 ? 102 : 101,
        side: role === "TAKER" ? side : "BUY",
        cross_type: "TRANSFER",
        price,
        shares: BigInt(tradeId) * unit,
        fee: 0n,
        time_ms: timeMs,
      });
    }
    const complement = 100_000_000n - price;
    for (const [pointOption, pointPrice] of [
      [optionId, price],
      [optionId === 101 ? 102 : 101, complement],
    ] as const) {
      await seed.insert("exchange_price_points", {
        option_id: pointOption,
        time_ms: timeMs,
        trade_id: tradeId,
        market_id: 11,
        outcome_id: 1001,
        price: pointPrice,
      });
    }
  }
}

async function seedDeposits(seed: SqlSeed): Promise<void> {
  const deposits: [string, number, bigint, number][] = [
    ["0xb", 1, 5n * unit, nowMs + 2],
    ["0xa", 1, 7n * unit, nowMs + 2],
    ["0xc", 2, 1n, nowMs + 1],
    ["0xd", 1, 2n ** 62n, nowMs + 3],
  ];
  for (const [txHash, userId, amount, creditedAtMs] of deposits) {
    await seed.insert("exchange_deposits", {
      tx_hash: txHash,
      user_id: userId,
      amount,
      credited_at_ms: creditedAtMs,
    });
  }
}

export function describeConsoleQueriesContract(harness: PortHarness<ConsoleQueries>): void {
  let open: PortInstance<ConsoleQueries> | undefined;
  const start = async () => {
    open = await harness.open();
    return open;
  };
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });

  it("answers an option's recent trades newest first, in that option's terms and the taker's own", async () => {
    const { store, seed } = await start();
    await seedTrades(seed);
    const taker = (optionId: number, side: "BUY" | "SELL", price: bigint) => ({ optionId, side, price });
    assert.deepEqual(await store.recentTrades(101, 10), [
      {
        tradeId: 4,
        price: 55_000_000n,
        shares: 4n * unit,
        takerSide: "BUY",
        timeMs: nowMs + 40,
        taker: taker(102, "SELL", 45_000_000n),
      },
      {
        tradeId: 3,
        price: 65_000_000n,
        shares: 3n * unit,
        takerSide: "SELL",
        timeMs: nowMs + 20,
        taker: taker(101, "SELL", 65_000_000n),
      },
      {
        tradeId: 2,
        price: 70_000_000n,
        shares: 2n * unit,
        takerSide: "SELL",
        timeMs: nowMs + 20,
        taker: taker(102, "BUY", 30_000_000n),
      },
      {
        tradeId: 1,
        price: 60_000_000n,
        shares: 1n * unit,
        takerSide: "BUY",
        timeMs: nowMs + 10,
        taker: taker(101, "BUY", 60_000_000n),
      },
    ]);
    assert.deepEqual(
      (await store.recentTrades(102, 2)).map((trade) => [trade.tradeId, trade.price, trade.takerSide]),
      [
        [4, 45_000_000n, "SELL"],
        [3, 35_000_000n, "BUY"],
      ],
    );
    assert.deepEqual(await store.recentTrades(999, 10), []);
  });

  it("lists partners newest first with their user counts", async () => {
    const { store, seed } = await start();
    assert.deepEqual(await store.partners({ page: 1, pageSize: 10 }), { total: 0, records: [] });
    await seedIdentity(seed);
    const page = await store.partners({ page: 1, pageSize: 2 });
    assert.equal(page.total, 3);
    assert.deepEqual(page.records, [
      {
        partnerId: 3,
        name: "initech",
        appKey: "key-initech",
        commissionRateBps: 30,
        webhookUrl: null,
        signedNonceRequired: false,
        createdAtMs: nowMs + 3,
        userCount: 0,
      },
      {
        partnerId: 2,
        name: "globex",
        appKey: "key-globex",
        commissionRateBps: 20,
        webhookUrl: "https://globex.example/hook",
        signedNonceRequired: false,
        createdAtMs: nowMs + 2,
        userCount: 2,
      },
    ]);
    const second = await store.partners({ page: 2, pageSize: 2 });
    assert.deepEqual(
      second.records.map((partner) => [partner.partnerId, partner.userCount]),
      [[1, 2]],
    );
    assert.deepEqual(await store.partners({ page: 5, pageSize: 2 }), { total: 3, records: [] });
    assert.deepEqual(await store.partners({ page: 2 ** 40, pageSize: 100 }), { total: 3, records: [] });
  });

  it("lists users newest first with active sessions, by partner and by keyword (prefix or id)", async () => {
    const { store, seed } = await start();
    await seedIdentity(seed);
    const all = await store.users({}, { page: 1, pageSize: 10 }, nowMs);
    assert.equal(all.total, 4);
    assert.deepEqual(
      all.records.map((user) => user.userId),
      [4, 3, 2, 1],
    );
    assert.deepEqual(all.records[3], {
      userId: 1,
      partnerId: 1,
      partnerName: "acme",
      marchantUserId: "alice",
      email: "alice@example.com",
      userName: "user1",
      createdAtMs: nowMs + 1,
      activeSessions: 2,
    });
    assert.equal(all.records[1]?.activeSessions, 1);
    // Later, every session has expired.
    const later = await store.users({}, { page: 1, pageSize: 10 }, nowMs + 5_000);
    assert.deepEqual(
      later.records.map((user) => user.activeSessions),
      [0, 0, 0, 0],
    );
    const ids = async (filter: { keyword?: string; partnerId?: number }) =>
      (await store.users(filter, { page: 1, pageSize: 10 }, nowMs)).records.map((user) => user.userId);
    assert.deepEqual(await ids({ partnerId: 2 }), [4, 3]);
    // A prefix of the merchant's user id, the e-mail or the user name, ASCII case ignored.
    assert.deepEqual(await ids({ keyword: "al" }), [4, 3, 1]);
    assert.deepEqual(await ids({ keyword: "AL" }), [4, 3, 1]);
    assert.deepEqual(await ids({ keyword: "al", partnerId: 1 }), [1]);
    // LIKE's wildcards are plain characters.
    assert.deepEqual(await ids({ keyword: "al_%" }), [3]);
    assert.deepEqual(await ids({ keyword: "a_" }), []);
    assert.deepEqual(await ids({ keyword: "user2" }), [2]);
    assert.deepEqual(await ids({ keyword: "2" }), [2]);
    assert.deepEqual(await ids({ keyword: "  bob  " }), [2]);
    assert.deepEqual(await ids({ keyword: "   " }), [4, 3, 2, 1]);
    const page = await store.users({ keyword: "al" }, { page: 2, pageSize: 2 }, nowMs);
    assert.equal(page.total, 3);
    assert.deepEqual(
      page.records.map((user) => user.userId),
      [1],
    );
    assert.deepEqual(await store.users({ partnerId: 1 }, { page: 9, pageSize: 2 }, nowMs), {
      total: 2,
      records: [],
    });
  });

  it("lists markets in every status newest first, by status and by title substring or id", async () => {
    const { store, seed } = await start();
    await seedMarkets(seed);
    const all = await store.markets({}, { page: 1, pageSize: 10 });
    assert.equal(all.total, 4);
    assert.deepEqual(
      all.records.map((market) => market.marketId),
      [14, 13, 12, 11],
    );
    assert.deepEqual(all.records[3], {
      marketId: 11,
      title: "Will it rain in Paris?",
      modelType: "ORDERBOOK",
      status: "open",
      categoryId: "7",
      startTimeMs: nowMs - 1_000,
      endTimeMs: nowMs + 1_000,
      createdAtMs: nowMs + 11,
      volume: 11n * unit,
      exclusive: false,
    });
    assert.equal(all.records[2]?.startTimeMs, null);
    assert.equal(all.records[0]?.exclusive, true);
    const ids = async (filter: { status?: string; keyword?: string }) =>
      (await store.markets(filter, { page: 1, pageSize: 10 })).records.map((market) => market.marketId);
    assert.deepEqual(await ids({ status: "open" }), [14, 11]);
    assert.deepEqual(await ids({ keyword: "rain" }), [14, 11]);
    assert.deepEqual(await ids({ keyword: "bitcoin" }), [13]);
    assert.deepEqual(await ids({ keyword: "100%" }), [12]);
    assert.deepEqual(await ids({ keyword: "%" }), [12]);
    assert.deepEqual(await ids({ keyword: "_" }), [12]);
    assert.deepEqual(await ids({ keyword: "13" }), [13]);
    assert.deepEqual(await ids({ keyword: "rain", status: "open" }), [14, 11]);
    assert.deepEqual(await ids({ keyword: "rain", status: "closed" }), []);
    assert.deepEqual(await store.markets({ status: "open" }, { page: 3, pageSize: 1 }), {
      total: 2,
      records: [],
    });
  });

  it("lists deposits newest first, all or one user's", async () => {
    const { store, seed } = await start();
    await seedDeposits(seed);
    const all = await store.deposits({}, { page: 1, pageSize: 10 });
    assert.equal(all.total, 4);
    assert.deepEqual(all.records, [
      { txHash: "0xd", userId: 1, amount: 2n ** 62n, creditedAtMs: nowMs + 3 },
      { txHash: "0xa", userId: 1, amount: 7n * unit, creditedAtMs: nowMs + 2 },
      { txHash: "0xb", userId: 1, amount: 5n * unit, creditedAtMs: nowMs + 2 },
      { txHash: "0xc", userId: 2, amount: 1n, creditedAtMs: nowMs + 1 },
    ]);
    const mine = await store.deposits({ userId: 1 }, { page: 2, pageSize: 2 });
    assert.equal(mine.total, 3);
    assert.deepEqual(
      mine.records.map((deposit) => deposit.txHash),
      ["0xb"],
    );
    assert.deepEqual(await store.deposits({ userId: 3 }, { page: 1, pageSize: 10 }), {
      total: 0,
      records: [],
    });
  });
}
