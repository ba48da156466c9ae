// Merchant notifications (DESIGN §8: Standard Webhooks) and the per-merchant rate limit, against a
// real server and a real HTTP receiver on 127.0.0.1.

import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { TransactionResult } from "../../src/contract/legacy/orders.js";
import { legacyPaths } from "../../src/contract/legacy/paths.js";
import { verifyWebhook } from "../../src/contract/signing/webhook-signature.js";
import { LegacyApiError } from "../../src/sdk/legacy/errors.js";
import { type BinaryMarket, startTradingPlatform } from "../e2e/trading-fixtures.js";
import { type LegacyPlatform, startLegacyPlatform } from "../legacy/fixtures.js";
import { type RecordedAnswer, recordingFetch } from "../support/recording-fetch.js";
import { waitForValue } from "../support/wait-until.js";

interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly status: number;
}

/** A webhook receiver that answers each delivery with the next status of `statuses` (then 200). */
async function startReceiver(
  statuses: number[] = [],
): Promise<{ url: string; deliveries: Delivery[]; server: Server }> {
  const deliveries: Delivery[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      const status = statuses.shift() ?? 200;
      deliveries.push({ headers: request.headers, body, status });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/predex`, deliveries, server };
}

let platform: LegacyPlatform;
let market: BinaryMarket;
const receivers: Server[] = [];
/** While set, the platform's clock stands still here (the rate-limit window test); else real time. */
let frozenNowMs: number | undefined;
/**
 * Runs `body` with the platform's clock standing a second ahead (a rate-limit window nothing before
 * used), so every request in it falls in one window however slowly the machine serves them.
 */
async function withClockStanding<T>(body: () => Promise<T>): Promise<T> {
  frozenNowMs = Date.now() + 1_000;
  try {
    return await body();
  } finally {
    frozenNowMs = undefined;
  }
}
before(async () => {
  platform = await startLegacyPlatform(
    startTradingPlatform({ platform: { nowMs: () => frozenNowMs ?? Date.now() } }),
  );
  market = await platform.openMarket();
});
after(async () => {
  for (const server of receivers) server.close();
  await platform.close();
});

function limitBuy() {
  return {
    marketId: Number(market.marketId),
    outcomeId: Number(market.outcomeId),
    optionId: Number(market.yes),
    direction: "BUY",
    orderType: "LIMIT",
    price: 0.3,
    amount: 3,
  };
}

describe("merchant webhooks", () => {
  it("POSTs each result to the merchant's webhookUrl, signed with the webhookSecret it was given", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver.server);
    const merchant = await platform.createMerchant({ webhookUrl: receiver.url });
    assert.match(merchant.webhookSecret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const client = await platform.fundedLegacyUser(merchant, "10");
    const fgRequestId = await client.submitOrder(limitBuy() as never);

    const delivered = await waitForValue(
      async () => {
        const result = await client.getRequestResult(fgRequestId);
        return result.notifyStatus === 1 ? result : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    assert.equal(delivered.status, "SUCCESS");
    assert.equal(delivered.notifyRetryTimes, 0);
    assert.match(delivered.notifyUpdateTime ?? "", /^\d{4}-\d{2}-\d{2}T/);

    assert.equal(receiver.deliveries.length, 1);
    const [delivery] = receiver.deliveries;
    assert.equal(delivery!.headers["content-type"], "application/json");
    assert.equal(delivery!.headers["webhook-id"], `msg_${fgRequestId}`);
    assert.match(String(delivery!.headers["webhook-signature"]), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.ok(verifyWebhook(merchant.webhookSecret, delivery!.headers, delivery!.body));
    assert.equal(verifyWebhook(merchant.webhookSecret, delivery!.headers, `${delivery!.body} `), false);
    const other = await platform.createMerchant();
    assert.equal(verifyWebhook(other.webhookSecret, delivery!.headers, delivery!.body), false);

    const payload = JSON.parse(delivery!.body) as { type: string; data: TransactionResult };
    assert.equal(payload.type, "request.result");
    assert.equal(payload.data.id, fgRequestId);
    assert.equal(payload.data.status, "SUCCESS");
    assert.equal(JSON.parse(payload.data.notifyContent).order.status, "OPEN");
  });

  it("retries a failed delivery with backoff and counts the failures in notifyRetryTimes", async () => {
    const receiver = await startReceiver([500, 503]);
    receivers.push(receiver.server);
    const merchant = await platform.createMerchant({ webhookUrl: receiver.url });
    const client = await platform.fundedLegacyUser(merchant, "10");
    const fgRequestId = await client.submitOrder(limitBuy() as never);

    const delivered = await waitForValue(
      async () => {
        const result = await client.getRequestResult(fgRequestId);
        return result.notifyStatus === 1 ? result : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    assert.equal(delivered.notifyRetryTimes, 2);
    assert.deepEqual(
      receiver.deliveries.map((delivery) => delivery.status),
      [500, 503, 200],
    );
    // The same message id on every attempt, so the merchant can drop duplicates; each one signed.
    assert.equal(new Set(receiver.deliveries.map((delivery) => delivery.headers["webhook-id"])).size, 1);
    for (const delivery of receiver.deliveries) {
      assert.ok(verifyWebhook(merchant.webhookSecret, delivery.headers, delivery.body));
    }
    const [first, second, third] = receiver.deliveries.map((delivery) =>
      Number(delivery.headers["webhook-timestamp"]),
    );
    assert.ok(second! - first! >= 1 && third! - second! >= 1, "backoff waits between attempts");
  });

  it("marks a result of a merchant without webhookUrl notifyStatus 3", async () => {
    const merchant = await platform.createMerchant();
    const client = await platform.fundedLegacyUser(merchant, "10");
    const fgRequestId = await client.submitOrder(limitBuy() as never);
    const result = await waitForValue(
      async () => {
        const seen = await client.getRequestResult(fgRequestId);
        return seen.notifyStatus === 3 ? seen : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    assert.equal(result.notifyRetryTimes, 0);
  });
});

describe("rate limit", () => {
  it("allows 50 requests per second per merchant, then 429 with retryAfter, limit and window", async () => {
    const merchant = await platform.createMerchant();
    const first = platform.legacyClient(merchant);
    const second = platform.legacyClient(merchant);
    const { token: firstToken } = await first.authorize();
    const { token: secondToken } = await second.authorize();
    // Two users of one merchant share its budget; all 70 requests in one window.
    const send = (token: string) =>
      platform.raw("legacy", {
        path: legacyPaths.requestResult("x"),
        headers: { authorization: `Bearer ${token}` },
      });
    const responses = await withClockStanding(() =>
      Promise.all(
        Array.from({ length: 70 }, (_unused, index) => send(index % 2 === 0 ? firstToken : secondToken)),
      ),
    );
    const limited = responses.filter((response) => response.status === 429);
    assert.equal(limited.length, 20, `${limited.length} of 70 were limited`);
    assert.equal(responses.filter((response) => response.status === 404).length, 50);
    assert.deepEqual(limited[0]!.json, {
      code: 429,
      msg: "Too many requests",
      data: { retryAfter: 1, limit: 50, window: "1s" },
    });
    assert.equal(limited[0]!.headers.get("retry-after"), "1");

    // Another merchant is not affected.
    const other = await platform.createMerchant();
    const otherClient = platform.legacyClient(other);
    await otherClient.authorize();
    await assert.rejects(
      otherClient.getRequestResult("x"),
      (error: unknown) => error instanceof LegacyApiError && error.status === 404,
    );
  });

  it("is waited out by the SDK client, which retries after retryAfter", async () => {
    const merchant = await platform.createMerchant();
    const answers: RecordedAnswer[] = [];
    const slept: number[] = [];
    const client = platform.legacyClient(merchant, {
      fetch: recordingFetch(answers),
      // The SDK's wait moves the standing clock on by what it waits: its retry falls in the next
      // window however slowly the machine serves it, and no timer is waited for or timed.
      sleep: async (ms) => {
        slept.push(ms);
        frozenNowMs = (frozenNowMs ?? Date.now()) + ms;
      },
    });
    const { token } = await client.authorize();
    // The 55 requests and the SDK's first try fall in one window.
    await withClockStanding(async () => {
      const spent = await Promise.all(
        Array.from({ length: 55 }, () =>
          platform.raw("legacy", {
            path: legacyPaths.requestResult("y"),
            headers: { authorization: `Bearer ${token}` },
          }),
        ),
      );
      assert.equal(spent.filter((response) => response.status === 429).length, 5, "the window is spent");
      await assert.rejects(
        client.getRequestResult("y"),
        (error: unknown) => error instanceof LegacyApiError && error.status === 404,
      );
    });
    // One 429 saying retry after 1 s, one wait of 1 s, then the answer (that the SDK waits what a
    // 429 says, not its own 1 s default, is test/sdk/legacy-client's).
    const tries = answers.filter((answer) => answer.path === legacyPaths.requestResult("y"));
    assert.deepEqual(
      tries.map((answer) => [answer.status, answer.retryAfter]),
      [
        [429, "1"],
        [404, null],
      ],
    );
    assert.deepEqual(slept, [1_000]);
  });
});
