// The deployment of issue #16 in processes of its own, through the real CLI: PostgreSQL, two
// `predex serve --role engine` nodes and two `predex serve --role api` nodes. Partners' users trade
// through both API nodes with the SDK (every order with a clientOrderId) while a WebSocket
// subscriber on each API node follows the book (clob-price-update). The leader is SIGKILLed in the
// middle of the burst; the standby takes over and trading goes on. Then the new leader is SIGSTOPped
// with orders in flight, a third engine node takes over when its lease runs out, and the paused one
// is resumed: it steps down in-process (a standby again), having written nothing.
//
// Checked: every acknowledged order is there afterwards (the same clientOrderId, sent again through
// the other API node, answers the same order) with its trades; money is conserved to the atom (the
// journal's state: deposits = balances + collateral + fees, and each user's REST balance on both
// API nodes equals it); each subscriber's stream is gapless (every message's prevSeq is the previous
// message's seq, across both takeovers) and both API nodes end at the same seq and the same book.
// SIGKILL → first order acknowledged through an API node is reported.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { socketPaths } from "../../src/contract/paths.js";
import {
  assertInvariants,
  balanceOf,
  type ExchangeCommand,
  type ExchangeEvent,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { JournalFollower } from "../../src/engine/journal-follower.js";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { SignedSocket } from "../../src/sdk/ws/signed-socket.js";
import { openPostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { CliTopology, leadingLine, type StartedApi } from "../support/cli-deployment.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const adminToken = "topology-test-admin-token-0123456789";
const usersCount = 8;
const ordersPerUser = 45;
const acknowledgedBeforeKill = 80;
const depositUsdt = "1000";

interface BookMessage {
  readonly seq: number;
  readonly prevSeq: number;
}

describe("two engine nodes and two API nodes: the leader dies mid-burst", { skip: skipReason }, () => {
  let topology: CliTopology;

  before(async () => {
    topology = await CliTopology.start("cluster");
  });
  after(() => topology?.stop());

  it("keeps every acknowledged order, conserves money, streams gaplessly on both API nodes", {
    timeout: 240_000,
  }, async (t) => {
    const env = await topology.env("cluster", adminToken, {
      PREDEX_ENGINE_LEASE_MS: "2000",
      PREDEX_FAILOVER_DEADLINE_MS: "30000",
    });
    const url = env.PREDEX_DATABASE_URL!;
    const startEngine = () => topology.startNode("engine", env);
    const startApi = (): Promise<StartedApi> => topology.startApi(env, 60_000);
    const first = startEngine();
    await first.waitFor(leadingLine, 60_000);
    const second = startEngine();
    await second.waitFor(/standby, following/, 60_000);
    const apiNodes = [await startApi(), await startApi()];

    const operator = new PredexAdminClient({ baseUrl: apiNodes[0]!.admin, token: adminToken });
    const partner = await operator.createPartner();
    const created = await operator.createMarket({
      title: "Failover",
      categoryId: (await operator.createCategory({ name: "Topology" })).id,
      takerFee: 50,
      makerFee: 10,
      startTime: new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
      endTime: new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
      outcomes: [{ name: "Failover", options: [{ title: "Yes" }, { title: "No" }] }],
    });
    const market = await operator.openMarket(created.marketId);
    const outcome = market.outcomes[0]!;
    const [yes, no] = [outcome.options[0]!.optionId, outcome.options[1]!.optionId];

    // A subscriber on each API node, from before the first order.
    const streams = apiNodes.map((api) => {
      const messages: BookMessage[] = [];
      // Every (re)connect counts: the socket must stay open through the failover.
      let opens = 0;
      let firstOpen = () => {};
      const opened = new Promise<void>((resolve) => {
        firstOpen = resolve;
      });
      const socket = new SignedSocket({
        baseUrl: api.gateway,
        credentials: partner,
        path: socketPaths.clobPriceUpdate,
        query: { marketId: market.marketId, outcomeId: outcome.outcomeId },
        backoff: { delayMsBase: 10, delayMsMax: 50 },
        onOpen: () => {
          opens += 1;
          firstOpen();
        },
        onMessage: (message) => {
          const { seq, prevSeq } = message as { seq?: number; prevSeq?: number };
          if (typeof seq === "number" && typeof prevSeq === "number") messages.push({ seq, prevSeq });
        },
      });
      socket.start();
      topology.onStop(() => socket.stop());
      return { messages, opened, opens: () => opens };
    });
    await Promise.all(streams.map((stream) => stream.opened));

    const users: { client: PredexClient; userId: string; api: number }[] = [];
    for (let index = 0; index < usersCount; index += 1) {
      const api = apiNodes[index % 2]!;
      const client = new PredexClient({
        baseUrl: api.gateway,
        credentials: partner,
        retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
      });
      const user = await client.register({
        userEmail: `cluster${index}@example.com`,
        merchantId: partner.merchantId,
        marchantUserId: `cluster-${index}`,
      });
      await operator.deposit({ userId: user.userId, amount: depositUsdt, txHash: `0xcluster${index}` });
      users.push({ client, userId: user.userId, api: index % 2 });
    }

    const acknowledged = new Map<
      string,
      { user: number; orderId: string; tradeIds: string[]; sentAtMs: number; atMs: number }
    >();
    const failures: string[] = [];
    let killedAtMs: number | undefined;
    let killing: Promise<void> | undefined;
    const trade = async (from: number, to: number) =>
      Promise.all(
        users.map(async (user, userIndex) => {
          for (let sequence = from; sequence < to; sequence += 1) {
            const clientOrderId = `u${userIndex}-${sequence}`;
            const sentAtMs = performance.now();
            try {
              const order = await user.client.createOrder({
                marketId: market.marketId,
                outcomeId: outcome.outcomeId,
                optionId: userIndex % 2 === 0 ? yes : no,
                side: "BUY",
                orderType: "LIMIT",
                limitPrice: [0.45, 0.5, 0.55][sequence % 3]!,
                shares: 1 + (sequence % 4),
                clientOrderId,
              });
              acknowledged.set(clientOrderId, {
                user: userIndex,
                orderId: order.orderId,
                tradeIds: order.trades.map((item) => item.tradeId),
                sentAtMs,
                atMs: performance.now(),
              });
            } catch (error) {
              failures.push(`${clientOrderId}: ${(error as Error).message}`);
            }
            if (killing === undefined && acknowledged.size >= acknowledgedBeforeKill) {
              killing = (async () => {
                first.kill("SIGKILL");
                killedAtMs = performance.now();
                await first.exited;
              })();
            }
          }
        }),
      );
    await trade(0, 30);
    await killing;
    const [, secondEpochText, secondTookOverText] = await second.waitFor(leadingLine, 30_000);
    const secondEpoch = BigInt(secondEpochText!);
    // Sent after the kill: only the new leader can have committed it.
    const acknowledgedAfterKill = [...acknowledged.values()].filter((ack) => ack.sentAtMs > killedAtMs!);
    t.diagnostic(
      `SIGKILL → first order sent after it and acknowledged through an API node: ${
        Math.min(...acknowledgedAfterKill.map((ack) => ack.atMs)) - killedAtMs!
      } ms (new leader epoch ${secondEpoch}, took over at ${secondTookOverText})`,
    );

    // The new leader SIGSTOPped with orders in flight; a third engine node takes over.
    const third = startEngine();
    await third.waitFor(/standby, following/, 60_000);
    const acknowledgedBeforeStop = acknowledged.size;
    const stoppedBurst = trade(30, ordersPerUser);
    // Stopped mid-burst: once orders of it are acknowledged, more are in flight.
    await waitUntil(() => acknowledged.size >= acknowledgedBeforeStop + usersCount, {
      what: "the burst under way on the new leader",
      intervalMs: 5,
    });
    second.kill("SIGSTOP");
    const [, , thirdTookOverText] = await third.waitFor(leadingLine, 30_000);
    await stoppedBurst;
    second.kill("SIGCONT");
    await second.waitFor(/stepped down .*standby again/, 30_000);
    assert.ok(second.running, "the resumed old leader steps down in-process: it does not exit");
    assert.deepEqual(failures, [], "every order was acknowledged across both takeovers");

    const checkPool = openPostgresPool({ url, applicationName: "predex-test-check" });
    topology.onStop(() => checkPool.end());
    const lateWrites = await checkPool.query<{ rows: bigint }>(
      "SELECT count(*)::bigint AS rows FROM engine_journal WHERE epoch = $1 AND sequence > $2",
      [secondEpoch, BigInt(thirdTookOverText!)],
    );
    assert.equal(lateWrites.rows[0]!.rows, 0n, "the paused leader wrote nothing after the takeover");

    // Every acknowledged order is there, asked through the other API node, with its trades.
    const otherClients = users.map((user) => {
      const client = new PredexClient({
        baseUrl: apiNodes[1 - user.api]!.gateway,
        credentials: partner,
        retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
      });
      client.sessionCookie = user.client.sessionCookie;
      return client;
    });
    const tradesByUser = await Promise.all(
      otherClients.map(async (client) => {
        const ids = new Set<string>();
        for (let page = 1; ; page += 1) {
          const result = await client.getTrades({ page, pageSize: 100 });
          for (const item of result.records) ids.add(item.tradeId);
          if (page >= result.pages) break;
        }
        return ids;
      }),
    );
    assert.equal(acknowledged.size, usersCount * ordersPerUser);
    for (const [clientOrderId, ack] of acknowledged) {
      const again = await otherClients[ack.user]!.createOrder({
        marketId: market.marketId,
        outcomeId: outcome.outcomeId,
        optionId: ack.user % 2 === 0 ? yes : no,
        side: "BUY",
        orderType: "LIMIT",
        limitPrice: 0.5,
        shares: 1,
        clientOrderId,
      });
      assert.equal(again.orderId, ack.orderId, clientOrderId);
      for (const tradeId of ack.tradeIds)
        assert.ok(tradesByUser[ack.user]!.has(tradeId), `${clientOrderId} trade ${tradeId}`);
    }

    // Money: the journal's state conserves it to the atom, and both API nodes report it per user.
    const reader = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(checkPool);
    const replay = await JournalFollower.start({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: reader,
    });
    const state = replay.position.state;
    assertInvariants(state);
    let balances = 0n;
    for (const user of users) {
      const live = balanceOf(state, Number(user.userId));
      balances += live.available + live.frozen;
    }
    const collateral = [...state.outcomes.values()].reduce((sum, item) => sum + item.collateral, 0n);
    assert.equal(state.totals.deposited, BigInt(usersCount) * 1000n * 100_000_000n);
    assert.equal(balances + collateral + state.totals.feeIncome, state.totals.deposited);

    // Streams: gapless on each node (no reconnect, so one chain), and the same end on both.
    const lastSeq = (index: number) => streams[index]!.messages.at(-1)?.seq;
    await waitUntil(() => lastSeq(0) !== undefined && lastSeq(0) === lastSeq(1), {
      what: () => `both API nodes streamed the last round (${lastSeq(0)}, ${lastSeq(1)})`,
    });
    for (const [index, stream] of streams.entries()) {
      assert.equal(stream.opens(), 1, `API node ${index}'s socket stayed open`);
      assert.ok(stream.messages.length > 10, `API node ${index} streamed the burst`);
      // One publish round sends a message per changed level, all with the round's seq and prevSeq;
      // each round's prevSeq is the round before's seq.
      for (let at = 1; at < stream.messages.length; at += 1) {
        const previous = stream.messages[at - 1]!;
        const message = stream.messages[at]!;
        if (message.seq === previous.seq)
          assert.equal(message.prevSeq, previous.prevSeq, `node ${index} message ${at}`);
        else assert.equal(message.prevSeq, previous.seq, `node ${index} message ${at}: no round missed`);
      }
    }
    assert.equal(streams[0]!.messages.at(-1)!.seq, streams[1]!.messages.at(-1)!.seq);
    const books = await Promise.all(
      otherClients
        .slice(0, 2)
        .map((client) => client.getBook({ marketId: market.marketId, outcomeId: outcome.outcomeId })),
    );
    // The same book on both nodes; `timestamp` is the time of each read, which may fall a second apart.
    const [bookOnFirst, bookOnSecond] = books.map(({ timestamp: _readAt, ...book }) => book);
    assert.deepEqual(bookOnFirst, bookOnSecond);
  });
});
