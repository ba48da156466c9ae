// The error handler of the Polymarket-compatible reads: an engine that cannot take a read now, or a
// database that cannot be reached, is 503 with Retry-After (never a 500), and anything unforeseen is
// a bare 500 {"error"} without detail.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Fastify from "fastify";
import { handlePolymarketError } from "../../../src/api/public/polymarket/errors.js";
import { EngineOverloadedError, EngineStoppedError } from "../../../src/engine/errors.js";

async function answerTo(error: Error) {
  const app = Fastify({ logger: false });
  app.setErrorHandler(handlePolymarketError);
  app.get("/read", async () => {
    throw error;
  });
  const response = await app.inject({ method: "GET", url: "/read" });
  await app.close();
  return response;
}

describe("Polymarket-compatible read errors", () => {
  it("an overloaded or stopped engine, or an unreachable database, is 503 with Retry-After, to try again", async () => {
    for (const error of [
      new EngineOverloadedError("readersWaitingMax", 1),
      new EngineStoppedError("closed"),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
    ]) {
      const response = await answerTo(error);
      assert.equal(response.statusCode, 503);
      assert.match(String(response.headers["retry-after"]), /^[1-9][0-9]*$/);
      assert.deepEqual(response.json(), { error: "service unavailable, try again" });
    }
  });

  it("an unforeseen error says nothing about itself", async () => {
    const response = await answerTo(new Error("secret detail"));
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), { error: "internal error" });
  });
});
