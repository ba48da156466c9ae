// Issue #27 defect 10 across processes, through the real CLI: PostgreSQL, one `predex serve --role
// engine` node and two `predex serve --role api` nodes, A and B. A partner follows one user's
// balance, positions and open orders with the SDK on each API node. API node A is SIGKILLed; while
// it is down the user's orders fill and are cancelled through B, and a new one is placed. A starts
// again on the same port; the SDK reconnects by itself and the snapshot A sends first makes its view
// equal the REST state on both nodes (the orders that finished are gone). Both nodes stamp the same
// change with the same `seq` (one journal), every message has one, and seqs never go backwards on
// a connection.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { assertStampedInOrder, assertViewMatchesRest, followUser } from "../e2e/user-channel-views.js";
import { CliTopology, leadingLine } from "../support/cli-deployment.js";
import { freeLoopbackPort } from "../support/loopback-port.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const adminToken = "topology-test-admin-token-0123456789";
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("user channels across an API node restart", { skip: skipReason }, () => {
  let topology: CliTopology;

  before(async () => {
    topology = await CliTopology.start("user-channels");
  });
  after(() => topology?.stop());

  it("a client of the restarted node comes back to the REST state from its snapshots", {
    timeout: 300_000,
  }, async () => {
    const env = await topology.env("user_channels", adminToken);
    const startApi = (extra: Record<string, string> = {}) => topology.startApi({ ...env, ...extra });
    const engine = topology.startNode("engine", env);
    await engine.waitFor(leadingLine, 90_000);
    // A keeps its gateway port across the restart, as a node behind a fixed address does.
    const portOfA = String(await freeLoopbackPort());
    const [apiA, apiB] = await Promise.all([startApi({ PREDEX_PORT: portOfA }), startApi()]);

    const operator = new PredexAdminClient({ baseUrl: apiB.admin, token: adminToken });
    const partner = await operator.createPartner();
    const created = await operator.createMarket({
      title: "Restart",
      categoryId: (await operator.createCategory({ name: "Topology" })).id,
      startTime: iso(Date.now() - 60_000),
      endTime: iso(Date.now() + 86_400_000),
      outcomes: [{ name: "Restart", options: [{ title: "Yes" }, { title: "No" }] }],
    });
    const market = await operator.openMarket(created.marketId);
    const outcome = market.outcomes[0]!;
    const [yes, no] = [outcome.options[0]!.optionId, outcome.options[1]!.optionId];
    const clientOn = (gateway: string) =>
      new PredexClient({
        baseUrl: gateway,
        credentials: partner,
        retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
      });
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
    // The same session on node A.
    const traderOnA = clientOn(apiA.gateway);
    traderOnA.sessionCookie = trader.sessionCookie;
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

    const a = await limit(trader, yes, 0.4, 10);
    const b = await limit(trader, yes, 0.41, 10);
    const c = await limit(trader, no, 0.3, 5);
    const d = await limit(trader, yes, 0.42, 10);
    await limit(other, no, 0.58, 4);

    const onA = followUser(apiA.gateway, partner, trader);
    const onB = followUser(apiB.gateway, partner, trader);
    topology.onStop(onA.stop);
    topology.onStop(onB.stop);
    await Promise.all([onA.whenLive(30_000), onB.whenLive(30_000)]);
    await assertViewMatchesRest(onA, traderOnA);
    await assertViewMatchesRest(onB, trader);
    assert.equal(onA.view().orders.length, 4);

    // API node A dies; the SDK's sockets on it close and their reconnects fail until it is back.
    apiA.node.kill("SIGKILL");
    await apiA.node.exited;
    await waitUntil(() => onA.states().every((state) => state !== "live"), {
      what: "A's subscriptions noticed",
      timeoutMs: 30_000,
    });

    await trader.cancelOrder(c.orderId);
    await limit(other, no, 0.59, 16);
    const e = await limit(trader, no, 0.2, 5);
    assert.equal(onA.view().orders.length, 4, "A's client still shows what it knew");

    const restartedA = await startApi({ PREDEX_PORT: portOfA });
    assert.equal(restartedA.gateway, apiA.gateway, "A is back at the same address");
    await waitUntil(() => onA.snapshotCounts().every((count) => count === 2), {
      what: "A's subscriptions took a second snapshot",
      timeoutMs: 60_000,
    });
    const restOnA = await assertViewMatchesRest(onA, traderOnA);
    const restOnB = await assertViewMatchesRest(onB, trader);
    assert.deepEqual(restOnA, restOnB, "both API nodes answer the same state");
    assert.deepEqual(
      restOnA.orders.map((order) => [order.orderId, order.status]),
      [
        [a.orderId, "OPEN"],
        [e.orderId, "OPEN"],
      ],
      "b, c and d finished while A was down and left A's client's view",
    );
    assert.deepEqual(onB.snapshotCounts(), [1, 1, 1], "B's client stayed connected");
    for (const id of [b.orderId, c.orderId, d.orderId]) assert.ok(!onA.orders.orders.has(id));

    // One journal: the next change comes to both nodes' clients with the same seq.
    await trader.cancelOrder(a.orderId);
    const cancelSeq = (followed: typeof onA) => {
      const messages = followed.received.orders.at(-1)! as Record<string, unknown>[];
      return messages.find((message) => message.orderId === a.orderId && message.status === "CANCELLED")?.seq;
    };
    await waitUntil(() => cancelSeq(onA) !== undefined && cancelSeq(onB) !== undefined, {
      what: "both nodes sent the cancel",
      timeoutMs: 30_000,
    });
    assert.equal(cancelSeq(onA), cancelSeq(onB));
    await assertViewMatchesRest(onA, traderOnA);
    assertStampedInOrder(onA.received);
    assertStampedInOrder(onB.received);
  });
});
