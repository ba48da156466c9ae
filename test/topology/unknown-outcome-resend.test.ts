// Issue 27 defect 1 over the real deployment: PostgreSQL, `predex serve --role engine` and
// `predex serve --role api` in processes of their own, a partner's user on the SDK over real sockets.
// The leader stops answering while the order is in flight (SIGSTOP: it holds the request unread, as a
// leader stuck on its database holds a commit), for longer than the API node's forward deadline.
// The API node must not say "nothing was done" (502/2002: the SDK resends, and the order, committed
// late, is placed twice): it says the outcome is unknown, 504/2001 with Retry-After. The SDK sent a
// clientOrderId of its own making, so it sends the order again with the same one once the leader is
// back: exactly one order, and the user's money frozen once.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { CliTopology, leadingLine } from "../support/cli-deployment.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { type RecordedAnswer, recordingFetch } from "../support/recording-fetch.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const adminToken = "unknown-outcome-admin-token-0123456789";
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

describe("an order whose leader stops answering: 504/2001, and the SDK's resend places it once", {
  skip: skipReason,
}, () => {
  let topology: CliTopology;

  before(async () => {
    topology = await CliTopology.start("unknown-outcome");
  });
  after(() => topology?.stop());

  it("answers the partner 504/2001 with Retry-After, and the resend with the same clientOrderId answers the one order", {
    timeout: 180_000,
  }, async () => {
    const env = await topology.env("unknown_outcome", adminToken, {
      // The paused leader keeps the lead (no takeover): it will commit what it holds once resumed.
      PREDEX_ENGINE_LEASE_MS: "60000",
      PREDEX_FAILOVER_DEADLINE_MS: "1000",
    });
    const engine = topology.startNode("engine", env);
    await engine.waitFor(leadingLine, 90_000);
    const { node: api, gateway, admin } = await topology.startApi(env);

    const operator = new PredexAdminClient({ baseUrl: admin, token: adminToken });
    const partner = await operator.createPartner();
    const created = await operator.createMarket({
      title: "Paused leader",
      categoryId: (await operator.createCategory({ name: "Outcomes" })).id,
      startTime: isoSeconds(Date.now() - 60_000),
      endTime: isoSeconds(Date.now() + 86_400_000),
      outcomes: [{ name: "Paused leader", options: [{ title: "Yes" }, { title: "No" }] }],
    });
    const market = await operator.openMarket(created.marketId);
    const outcome = market.outcomes[0]!;
    const answers: RecordedAnswer[] = [];
    const client = new PredexClient({
      baseUrl: gateway,
      credentials: partner,
      fetch: recordingFetch(answers),
    });
    const user = await client.register({
      userEmail: "paused@example.com",
      merchantId: partner.merchantId,
      marchantUserId: "paused-leader",
    });
    await operator.deposit({ userId: user.userId, amount: "100", txHash: "0xpausedleader" });

    engine.kill("SIGSTOP");
    const placing = client.createOrder({
      marketId: market.marketId,
      outcomeId: outcome.outcomeId,
      optionId: outcome.options[0]!.optionId,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 10,
    });
    const createAnswers = () => answers.filter((answer) => answer.path === "/ordering/create-order");
    await waitUntil(() => createAnswers().some((answer) => answer.status === 504), {
      what: () => `a 504 among ${JSON.stringify(createAnswers())}`,
      timeoutMs: 60_000,
      intervalMs: 50,
    });
    engine.kill("SIGCONT");
    const order = await placing;

    const sent = createAnswers();
    const first = sent[0]!;
    assert.deepEqual(
      [first.status, first.code, first.message],
      [504, 2001, "upstream request timed out"],
      "the partner is told the outcome is unknown, not that nothing was done",
    );
    assert.match(first.retryAfter ?? "", /^[1-9][0-9]*$/);
    assert.equal(sent.at(-1)!.status, 200);
    assert.ok(!sent.some((answer) => answer.status === 502 || answer.status === 500), JSON.stringify(sent));
    const clientOrderIds = new Set(sent.map((answer) => JSON.parse(answer.requestBody!).clientOrderId));
    assert.equal(clientOrderIds.size, 1, "every attempt carried the same clientOrderId");
    assert.deepEqual([...clientOrderIds], [order.clientOrderId]);

    // Exactly one order: one open order, 3 USDT (10 × 0.3) frozen once.
    const open = await client.getOpenOrders({ marketId: market.marketId });
    assert.deepEqual(
      open.records.map((record) => [record.orderId, record.clientOrderId]),
      [[order.orderId, order.clientOrderId]],
    );
    const [usdt] = await client.getAssets();
    assert.deepEqual([usdt!.available, usdt!.frozen], ["97", "3"]);
    // Sent once more by hand, the same clientOrderId still answers the same order.
    const again = await client.createOrder({
      marketId: market.marketId,
      outcomeId: outcome.outcomeId,
      optionId: outcome.options[0]!.optionId,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 10,
      clientOrderId: order.clientOrderId!,
    });
    assert.equal(again.orderId, order.orderId);
    assert.ok(engine.running && api.running, "no node exited");
  });
});
