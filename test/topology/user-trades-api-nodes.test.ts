// /socket/user-trades across processes, through the real CLI: PostgreSQL, one `predex serve --role
// engine` node and two `predex serve --role api` nodes, A and B. A partner follows one user's
// fills with the SDK on each API node while the user trades through both: both nodes send the same
// messages, seq included (one journal, each trade stamped with its own command's sequence, however
// each node's follower pages the journal). API node A is then SIGKILLed; the user trades through B;
// A starts again on the same port, the SDK reconnects by itself and reads what it missed from
// GET /trades; after that, each client holds every fill exactly once, as GET /trades has them.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { UserTradeMessage } from "../../src/contract/channels.js";
import type { Trade } from "../../src/contract/partner/trading.js";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { UserTradesSubscription } from "../../src/sdk/ws/user-trades-subscription.js";
import { CliTopology, leadingLine } from "../support/cli-deployment.js";
import { freeLoopbackPort } from "../support/loopback-port.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const adminToken = "topology-test-admin-token-0123456789";
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("user trades on several API nodes", { skip: skipReason }, () => {
  let topology: CliTopology;

  before(async () => {
    topology = await CliTopology.start("user-trades");
  });
  after(() => topology?.stop());

  it("every node sends the same fills with the same seq, and a client of a restarted node catches up", {
    timeout: 300_000,
  }, async () => {
    const env = await topology.env("user_trades", adminToken);
    const startApi = (extra: Record<string, string> = {}) => topology.startApi({ ...env, ...extra });
    const engine = topology.startNode("engine", env);
    await engine.waitFor(leadingLine, 90_000);
    const portOfA = String(await freeLoopbackPort());
    const [apiA, apiB] = await Promise.all([startApi({ PREDEX_PORT: portOfA }), startApi()]);

    const operator = new PredexAdminClient({ baseUrl: apiB.admin, token: adminToken });
    const partner = await operator.createPartner();
    const created = await operator.createMarket({
      title: "Fills on two nodes",
      categoryId: (await operator.createCategory({ name: "Topology" })).id,
      startTime: iso(Date.now() - 60_000),
      endTime: iso(Date.now() + 86_400_000),
      makerFee: 100,
      takerFee: 200,
      outcomes: [{ name: "Fills", options: [{ title: "Yes" }, { title: "No" }] }],
    });
    const market = await operator.openMarket(created.marketId);
    const outcome = market.outcomes[0]!;
    const [yes, no] = [outcome.options[0]!.optionId, outcome.options[1]!.optionId];
    const clientOn = (gateway: string, cookie?: string) => {
      const client = new PredexClient({
        baseUrl: gateway,
        credentials: partner,
        retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
      });
      if (cookie !== undefined) client.sessionCookie = cookie;
      return client;
    };
    const registered = async (name: string) => {
      const client = clientOn(apiB.gateway);
      const user = await client.register({
        userEmail: `${name}@example.com`,
        merchantId: partner.merchantId,
        marchantUserId: name,
      });
      await operator.deposit({ userId: user.userId, amount: "1000", txHash: `0x${name}` });
      return client;
    };
    const trader = await registered("trader");
    const other = await registered("other");
    const traderOnA = clientOn(apiA.gateway, trader.sessionCookie);
    const otherOnA = clientOn(apiA.gateway, other.sessionCookie);
    const limit = (client: PredexClient, optionId: string, limitPrice: number, shares: number) =>
      client.createOrder({
        marketId: market.marketId,
        outcomeId: outcome.outcomeId,
        optionId,
        side: "BUY",
        orderType: "LIMIT",
        limitPrice,
        shares,
      });

    const follow = (gateway: string, client: PredexClient) => {
      const followed = { live: [] as UserTradeMessage[], missed: [] as Trade[] };
      const subscription = new UserTradesSubscription({
        baseUrl: gateway,
        credentials: partner,
        cookie: () => client.sessionCookie,
        getTrades: (query) => client.getTrades(query),
        backoff: { delayMsBase: 50, delayMsMax: 500 },
        onTrade: (trade) => followed.live.push(trade),
        onMissedTrades: (trades) => followed.missed.push(...trades),
      });
      subscription.start();
      topology.onStop(() => subscription.stop());
      return { ...followed, subscription };
    };
    const onA = follow(apiA.gateway, traderOnA);
    const onB = follow(apiB.gateway, trader);
    await Promise.all([onA.subscription.whenLive(30_000), onB.subscription.whenLive(30_000)]);

    // Orders through both nodes: the trader is maker twice and taker once.
    await limit(trader, yes, 0.4, 10);
    await limit(otherOnA, no, 0.6, 4);
    await limit(other, no, 0.6, 6);
    await limit(otherOnA, yes, 0.45, 3);
    await limit(traderOnA, no, 0.55, 3);
    await waitUntil(() => onA.live.length === 3 && onB.live.length === 3, {
      what: "both nodes sent the three fills",
      timeoutMs: 30_000,
    });
    assert.deepEqual(onA.live, onB.live, "the same messages, seq included, from both nodes");
    assert.deepEqual(
      onA.live.map((trade) => trade.role),
      ["MAKER", "MAKER", "TAKER"],
    );
    for (let index = 1; index < onA.live.length; index += 1)
      assert.ok(onA.live[index]!.seq > onA.live[index - 1]!.seq, "each fill came from a later command");

    // API node A dies; the trader fills twice through B while A is down.
    apiA.node.kill("SIGKILL");
    await apiA.node.exited;
    await waitUntil(() => onA.subscription.state !== "live", {
      what: "A's subscription noticed",
      timeoutMs: 30_000,
    });
    await limit(trader, yes, 0.41, 2);
    await limit(other, no, 0.59, 2);
    await limit(other, yes, 0.46, 1);
    await limit(trader, no, 0.54, 1);
    await waitUntil(() => onB.live.length === 5, { what: "B sent both", timeoutMs: 30_000 });

    const restartedA = await startApi({ PREDEX_PORT: portOfA });
    assert.equal(restartedA.gateway, apiA.gateway, "A is back at the same address");
    await waitUntil(() => onA.missed.length === 2, { what: "A's client caught up", timeoutMs: 60_000 });
    await onA.subscription.whenLive(30_000);
    const rest = (await trader.getTrades({ pageSize: 100 })).records.reverse();
    const withoutStamp = ({ clientOrderId: _c, seq: _s, ...trade }: UserTradeMessage): Trade => trade;
    assert.deepEqual(onA.missed, rest.slice(3), "what A's client missed, oldest first");
    assert.deepEqual([...onA.live.map(withoutStamp), ...onA.missed], rest, "every fill once on A");
    assert.deepEqual(onB.live.map(withoutStamp), rest, "every fill live on B");

    // Live again on A, with the same message as B.
    await limit(other, yes, 0.47, 1);
    await limit(trader, no, 0.53, 1);
    await waitUntil(() => onA.live.length === 4 && onB.live.length === 6, {
      what: "both sent the next fill",
      timeoutMs: 30_000,
    });
    assert.deepEqual(onA.live.at(-1), onB.live.at(-1));
  });
});
