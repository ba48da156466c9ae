// The admin listener answers the router's own refusals (a path parameter longer than the router
// takes, a malformed %-escape) in the admin API's envelope, as the signed host does: 400/1001 with
// {code, message, data}, never Fastify's `{statusCode, error, message}` body and its 414.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestPlatform, type TestPlatform } from "./harness.js";

describe("admin listener: path segments the router refuses", () => {
  let platform: TestPlatform;
  before(async () => {
    platform = await startTestPlatform();
  });
  after(() => platform.close());

  const get = async (path: string, token: string | undefined = platform.platform.adminToken) => {
    const response = await fetch(`${platform.addresses.admin}${path}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      body: await response.text(),
    };
  };

  it("an overlong path parameter is a 400/1001 envelope, not Fastify's 414 body", async () => {
    for (const path of [
      `/admin/markets/${"9".repeat(300)}`,
      `/admin/partners/${"x".repeat(300)}/rate-limit`,
    ]) {
      for (const token of [platform.platform.adminToken, undefined]) {
        const response = await get(path, token);
        assert.equal(response.status, 400, response.body);
        assert.match(response.type ?? "", /^application\/json/);
        const body = JSON.parse(response.body) as Record<string, unknown>;
        assert.deepEqual(Object.keys(body).sort(), ["code", "data", "message"], response.body);
        assert.equal(body.code, 1001);
        assert.equal(body.data, null);
        assert.match(String(body.message), /^bad request: /);
      }
    }
  });

  it("a malformed %-escape in a path parameter is a 400/1001 envelope", async () => {
    const response = await get("/admin/markets/%E0%A4%A");
    assert.equal(response.status, 400, response.body);
    assert.equal((JSON.parse(response.body) as { code: number }).code, 1001);
  });

  it("a path parameter of ordinary length still reaches the route", async () => {
    const response = await get(`/admin/markets/${"9".repeat(60)}`);
    assert.notEqual(response.status, 414);
    assert.equal(
      (JSON.parse(response.body) as { code: number }).code === 1001 || response.status === 404,
      true,
      response.body,
    );
  });
});
