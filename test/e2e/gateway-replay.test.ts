// Issue #27 defect 2: a captured order could be replayed. The gateway remembers only a nonce the
// request signs, and the SDK signed none, so the same signed create-order sent twice within the
// 15-minute date window placed two orders. Now the SDK signs a fresh x-ca-nonce into every request,
// and the operator can require a signed nonce on every request of a partner that is not a read
// (POST /admin/partners/{merchantId} {"signedNonceRequired": true}; off by default, since spec
// 000's own example signs x-api-key alone). Through the SDK over real sockets, on both stores (the
// PostgreSQL pass runs this file too); two API nodes sharing the setting: test/topology/
// partner-settings-nodes.test.ts.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { startPlatform } from "../../src/server.js";
import { apiError, testPlatformConfig } from "./harness.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

const nonceMissing = "unauthorized: Missing signed X-CA-NONCE header";

/** A request exactly as the SDK put it on the wire. */
interface CapturedRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer | undefined;
}

/** A fetch for the SDK that keeps a copy of every request it sends. */
function capturingFetch(captured: CapturedRequest[]): typeof fetch {
  return (input, init) => {
    const body = init?.body;
    captured.push({
      url: String(input),
      method: init?.method ?? "GET",
      headers: { ...(init?.headers as Record<string, string>) },
      body: body instanceof Uint8Array ? Buffer.from(body) : undefined,
    });
    return fetch(input, init);
  };
}

/** Sends the captured bytes again with node's plain HTTP client (no SDK, no signing). */
function replay(captured: CapturedRequest): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      captured.url,
      { method: captured.method, headers: captured.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString("utf8")),
          }),
        );
      },
    );
    sent.on("error", reject);
    sent.end(captured.body);
  });
}

describe("a captured signed request cannot be replayed", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform();
    market = await platform.openMarket();
  });
  after(() => platform?.close());

  const bid = (shares: number) => ({
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId: market.yes,
    side: "BUY" as const,
    orderType: "LIMIT" as const,
    limitPrice: 0.1,
    shares,
  });

  /** A registered user of `partner` with 100 USDT, driven by `client`. */
  const fund = async (client: PredexClient, merchantId: string, marchantUserId: string) => {
    const user = await client.register({
      userEmail: `${marchantUserId}@example.com`,
      merchantId,
      marchantUserId,
    });
    await platform.operator.deposit({ userId: user.userId, amount: "100", txHash: `0x${marchantUserId}` });
    return user;
  };

  it("refuses the bytes of an SDK create-order sent again by a raw HTTP client, and places one order", async () => {
    const captured: CapturedRequest[] = [];
    const client = platform.client(platform.partner, { fetch: capturingFetch(captured) });
    await fund(client, platform.partner.merchantId, "replayed");
    const order = await client.createOrder(bid(10));
    const sent = captured.find((request) => new URL(request.url).pathname === "/ordering/create-order");
    assert.ok(sent !== undefined);
    assert.equal(sent.headers["x-ca-signature-headers"], "x-api-key,x-ca-nonce", "the SDK signed a nonce");

    const replayed = await replay(sent);
    assert.deepEqual(replayed, {
      status: 401,
      json: { code: 1401, message: "unauthorized: Nonce already used", data: null },
    });
    const open = await client.getOpenOrders({ marketId: market.marketId });
    assert.deepEqual(
      open.records.map((record) => record.orderId),
      [order.orderId],
      "one order, not two",
    );
  });

  it("serves a partner that must sign nonces only when its mutating requests sign one; reads need none", async () => {
    const partner = await platform.createPartner();
    const view = await platform.operator.updatePartner(partner.merchantId, { signedNonceRequired: true });
    assert.equal(view.signedNonceRequired, true);
    assert.equal((await platform.operator.getPartner(partner.merchantId)).signedNonceRequired, true);
    const listed = await platform.admin("GET", "/admin/partners?pageSize=100");
    const records = (
      listed.json as { data: { records: { merchantId: string; signedNonceRequired: boolean }[] } }
    ).data.records;
    assert.equal(
      records.find((record) => record.merchantId === partner.merchantId)?.signedNonceRequired,
      true,
    );
    assert.equal(
      records.find((record) => record.merchantId === platform.partner.merchantId)?.signedNonceRequired,
      false,
      "off for every other partner",
    );

    const withoutNonces = platform.client(partner, { nonces: false });
    const registration = {
      userEmail: "strict@example.com",
      merchantId: partner.merchantId,
      marchantUserId: "strict",
    };
    await assert.rejects(withoutNonces.register(registration), apiError(401, 1401, nonceMissing));

    const withNonces = platform.client(partner);
    await fund(withNonces, partner.merchantId, "strict");
    withoutNonces.sessionCookie = withNonces.sessionCookie;
    // Reads (GET) pass without a nonce.
    assert.equal((await withoutNonces.getProfile()).email, "strict@example.com");
    assert.equal((await withoutNonces.getAssets())[0]?.available, "100");
    assert.equal(
      (await withoutNonces.getBook({ marketId: market.marketId, outcomeId: market.outcomeId })).marketId,
      market.marketId,
    );
    // A mutation without one is refused and places nothing; with one it is served.
    await assert.rejects(withoutNonces.createOrder(bid(5)), apiError(401, 1401, nonceMissing));
    assert.equal((await withNonces.getOpenOrders({ marketId: market.marketId })).records.length, 0);
    const placed = await withNonces.createOrder(bid(5));
    // POST is never a read to the gateway, not even open-orders (decided by method alone).
    await assert.rejects(withoutNonces.getOpenOrders(), apiError(401, 1401, nonceMissing));
    assert.deepEqual(
      (await withNonces.getOpenOrders({ marketId: market.marketId })).records.map((record) => record.orderId),
      [placed.orderId],
    );

    // Turned off again, the partner's requests without a nonce are served.
    assert.equal(
      (await platform.operator.updatePartner(partner.merchantId, { signedNonceRequired: false }))
        .signedNonceRequired,
      false,
    );
    await withoutNonces.cancelOrder(placed.orderId);
  });

  it("answers an unknown partner 404 and a body of the wrong type 400", async () => {
    const unknown = await platform.admin("POST", "/admin/partners/999999", { signedNonceRequired: true });
    assert.equal(unknown.status, 404);
    const wrongType = await platform.admin("POST", `/admin/partners/${platform.partner.merchantId}`, {
      signedNonceRequired: "yes",
    });
    assert.equal(wrongType.status, 400);
    assert.equal((wrongType.json as { code: number }).code, 1001);
    assert.equal(
      (await platform.operator.getPartner(platform.partner.merchantId)).signedNonceRequired,
      false,
    );
  });
});

describe("the signed-nonce requirement", () => {
  it("survives a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "predex-replay-"));
    const config = testPlatformConfig(dataDir);
    try {
      const first = await startPlatform(config);
      let partner: Awaited<ReturnType<PredexAdminClient["createPartner"]>>;
      try {
        const operator = new PredexAdminClient({ baseUrl: first.addresses.admin, token: first.adminToken });
        partner = await operator.createPartner();
        await operator.updatePartner(partner.merchantId, { signedNonceRequired: true });
      } finally {
        await first.close();
      }

      const second = await startPlatform(config);
      try {
        const operator = new PredexAdminClient({ baseUrl: second.addresses.admin, token: second.adminToken });
        assert.equal((await operator.getPartner(partner.merchantId)).signedNonceRequired, true);
        const registration = {
          userEmail: "r@example.com",
          merchantId: partner.merchantId,
          marchantUserId: "r",
        };
        const client = (nonces: boolean) =>
          new PredexClient({ baseUrl: second.addresses.gateway, credentials: partner, nonces });
        await assert.rejects(client(false).register(registration), apiError(401, 1401, nonceMissing));
        assert.equal((await client(true).register(registration)).email, "r@example.com");
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
