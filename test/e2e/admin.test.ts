// The operator's API: bearer token, partner creation, and secrets that a database leak does not reveal.

import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PredexClient } from "../../src/sdk/client.js";
import { startPlatform } from "../../src/server.js";
import { startTestPlatform, type TestPlatform, testPlatformConfig } from "./harness.js";
import { storedText } from "./store-contents.js";

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform();
});
after(() => platform.close());

describe("admin token", () => {
  it("is required: 401/1401", async () => {
    const missing = await platform.raw("admin", { method: "POST", path: "/admin/partners" });
    assert.equal(missing.status, 401);
    assert.deepEqual(missing.json, {
      code: 1401,
      message: "unauthorized: Missing Authorization header",
      data: null,
    });
    const wrong = await platform.raw("admin", {
      method: "POST",
      path: "/admin/partners",
      headers: { authorization: "Bearer nope", "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.json, { code: 1401, message: "unauthorized: Invalid admin token", data: null });
  });

  it("was created in the data dir, readable by its owner only", () => {
    const path = join(platform.dataDir, "admin-token");
    assert.equal(readFileSync(path, "utf8").trim(), platform.platform.adminToken);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(platform.dataDir, "master.key")).mode & 0o777, 0o600);
  });

  it("answers an unknown admin route with 404/1404", async () => {
    const response = await platform.admin("GET", "/admin/nothing");
    assert.equal(response.status, 404);
    assert.equal((response.json as { code: number }).code, 1404);
  });
});

describe("POST /admin/partners", () => {
  it("creates a partner with every optional field", async () => {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const response = await platform.admin("POST", "/admin/partners", {
      name: "acme",
      rsaPublicKey: publicKey.export({ type: "spki", format: "pem" }),
      commissionRate: "0.05",
      webhookUrl: "https://acme.example/hooks",
    });
    assert.equal(response.status, 200, response.text);
    const { data } = response.json as { data: Record<string, string> };
    assert.deepEqual(Object.keys(data).sort(), [
      "apiKey",
      "appKey",
      "appSecret",
      "merchantId",
      "webhookSecret",
    ]);
    assert.match(data.merchantId!, /^[0-9]+$/);
    assert.notEqual(data.appKey, data.apiKey);
    const stored = await platform.platform.deps.identity.store.findPartnerByName("acme");
    assert.equal(stored?.commissionRateBps, 500);
    assert.equal(stored?.webhookUrl, "https://acme.example/hooks");
  });

  it("accepts commissionRate as a number", async () => {
    const response = await platform.admin("POST", "/admin/partners", { commissionRate: 0.125 });
    assert.equal(response.status, 200, response.text);
  });

  it("refuses bad optional fields with 400/1001 naming them", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ rsaPublicKey: "not a key" }, "bad request: rsaPublicKey must be a PEM public key"],
      [
        { commissionRate: 1.5 },
        "bad request: commissionRate must be between 0 and 1 with at most 4 decimals",
      ],
      [
        { commissionRate: "0.00001" },
        "bad request: commissionRate must be between 0 and 1 with at most 4 decimals",
      ],
      [{ webhookUrl: "ftp://acme.example" }, "bad request: webhookUrl must be an http or https URL"],
      [{ name: "" }, "bad request: name must be a non-empty string"],
    ];
    for (const [body, message] of cases) {
      const response = await platform.admin("POST", "/admin/partners", body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(response.json, { code: 1001, message, data: null });
    }
  });

  it("refuses a second partner with the same name", async () => {
    await platform.createPartner({ name: "twice" });
    const response = await platform.admin("POST", "/admin/partners", { name: "twice" });
    assert.equal(response.status, 400);
  });

  it("stores neither the APP Secret nor the API key in clear", async () => {
    const partner = await platform.createPartner();
    // SQLite: the database file's bytes; PostgreSQL: every row of every table as text.
    const bytes = await storedText(platform);
    assert.ok(bytes.includes(partner.appKey), "the APP Key is an identifier and is stored");
    assert.ok(!bytes.includes(partner.appSecret));
    assert.ok(!bytes.includes(partner.apiKey));
    // Nor as the hex of their bytes (a bytea column in PostgreSQL's text form).
    for (const secret of [partner.appSecret, partner.apiKey])
      assert.ok(!bytes.includes(Buffer.from(secret).toString("hex")));
  });
});

describe("restarting on the same data dir", () => {
  it("keeps partners usable: the sealed secret opens with the saved master key", async () => {
    const first = await startTestPlatform();
    // The data dir outlives the first platform; first.close() (in finally) removes it.
    let second: Awaited<ReturnType<typeof startPlatform>> | undefined;
    try {
      const { partner, user } = await first.registeredUser();
      await first.platform.close();
      second = await startPlatform(testPlatformConfig(first.dataDir));
      assert.equal(second.adminTokenCreated, false);
      assert.equal(second.adminToken, first.platform.adminToken);
      const client = new PredexClient({ baseUrl: second.addresses.gateway, credentials: partner });
      assert.equal((await client.getUser(user.userId)).userId, user.userId);
    } finally {
      await second?.close();
      await first.close().catch(() => undefined);
    }
  });
});
