// The partner surface's single error mapping, on a small Fastify app wired the way the partner
// app is (same validator compiler, error and not-found handlers, raw-body parsers).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import Fastify from "fastify";
import { Type } from "typebox";
import {
  fromRejection,
  handlePartnerError,
  handlePartnerNotFound,
  sendRejection,
} from "../../../src/api/partner/errors.js";
import { installRawBodyParsers } from "../../../src/api/shared/raw-body.js";
import type { TypeBoxApp } from "../../../src/api/shared/typebox-app.js";
import { partnerResponses } from "../../../src/contract/partner/envelope.js";
import { reject } from "../../../src/core/errors.js";
import {
  EngineFatalError,
  EngineOutcomeUnknownError,
  EngineOverloadedError,
  EngineStoppedError,
} from "../../../src/engine/errors.js";
import { noteStatementOutcome } from "../../../src/store/database-faults.js";

/** A broken connection's error as node-postgres gives it, noted with what its statement was. */
function brokenConnection(mayHaveCommitted: boolean | undefined): Error {
  const error = Object.assign(new Error("terminating connection due to administrator command"), {
    code: "57P01",
  });
  if (mayHaveCommitted !== undefined) noteStatementOutcome(error, mayHaveCommitted);
  return error;
}

const failures: Record<string, () => Error> = {
  overloaded: () => new EngineOverloadedError("queueCommandsMax", 1),
  stopped: () => new EngineStoppedError("The engine is closed"),
  "no-answer": () => new EngineOutcomeUnknownError("No engine leader answered; it may still commit"),
  "engine-failed": () => new EngineFatalError("The engine stopped: I/O error", { cause: new Error("EIO") }),
  "engine-failed-never-written": () =>
    new EngineFatalError("The engine stopped: database is locked", {
      cause: Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }),
    }),
  "database-refused": () =>
    Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
  "database-starting": () =>
    Object.assign(new Error("the database system is starting up"), { code: "57P03" }),
  "database-read-only": () =>
    Object.assign(new Error("cannot execute INSERT in a read-only transaction"), { code: "25006" }),
  "database-read-cut": () => brokenConnection(false),
  "database-commit-cut": () => brokenConnection(true),
  "database-cut-unnoted": () => brokenConnection(undefined),
  "wrapped-database-refused": () =>
    new Error("loading the session failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    }),
};

async function app(): Promise<TypeBoxApp> {
  const instance = Fastify() as unknown as TypeBoxApp;
  instance.setValidatorCompiler(TypeBoxValidatorCompiler);
  installRawBodyParsers(instance, { jsonDecoding: "eager" });
  instance.setErrorHandler(handlePartnerError);
  instance.setNotFoundHandler(handlePartnerNotFound);
  instance.get(
    "/book",
    {
      schema: {
        querystring: Type.Object({
          marketId: Type.String(),
          page: Type.Optional(Type.Integer({ minimum: 1 })),
        }),
        response: partnerResponses(Type.Object({ marketId: Type.String() })),
      },
    },
    async (request) => ({ code: 0, message: "ok", data: { marketId: request.query.marketId } }),
  );
  instance.get("/boom", async () => {
    throw new Error("secret internals at /srv/predex/db.ts:42");
  });
  // Each failure the surfaces answer as try-again-later, by name (see the test below).
  instance.get<{ Params: { kind: string } }>("/failure/:kind", async (request) => {
    throw failures[request.params.kind]!();
  });
  instance.get(
    "/not-ready",
    { schema: { response: partnerResponses(Type.Union([Type.Object({}), Type.Null()])) } },
    async (_request, reply) => sendRejection(reply, reject("BOOK_NOT_INITIALIZED")),
  );
  return instance;
}

describe("partner error mapping", () => {
  it("answers a query-string failure in text/plain, naming the field", async () => {
    const instance = await app();
    const missing = await instance.inject({ method: "GET", url: "/book" });
    assert.equal(missing.statusCode, 400);
    assert.match(String(missing.headers["content-type"]), /^text\/plain/);
    assert.equal(missing.body, "Query deserialize error: missing field `marketId`");
    const invalid = await instance.inject({ method: "GET", url: "/book?marketId=1&page=0" });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.body, "Query deserialize error: invalid value for `page`: must be >= 1");
    const fine = await instance.inject({ method: "GET", url: "/book?marketId=1&page=2" });
    assert.equal(fine.statusCode, 200);
  });

  it("answers an unexpected failure with 500/9999 and never a stack trace", async () => {
    const response = await (await app()).inject({ method: "GET", url: "/boom" });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), { code: 9999, message: "internal error", data: null });
    assert.ok(!response.body.includes("srv"));
  });

  it("answers what became of the request: 502/2002 nothing was done, 504/2001 unknown, both with Retry-After, never 500", async () => {
    const instance = await app();
    const answers: Record<string, [number, unknown, string | undefined]> = {};
    for (const kind of Object.keys(failures)) {
      const response = await instance.inject({ method: "GET", url: `/failure/${kind}` });
      const retryAfter = response.headers["retry-after"];
      answers[kind] = [response.statusCode, response.json().code, retryAfter === undefined ? undefined : "n"];
      assert.match(String(retryAfter), /^[1-9][0-9]*$/, kind);
      assert.ok(!response.body.includes("ECONNREFUSED") && !response.body.includes("EIO"), kind);
    }
    const nothingDone = [502, 2002, "n"];
    const unknown = [504, 2001, "n"];
    assert.deepEqual(answers, {
      overloaded: nothingDone,
      stopped: nothingDone,
      "no-answer": unknown,
      "engine-failed": unknown,
      "engine-failed-never-written": nothingDone,
      "database-refused": nothingDone,
      "database-starting": nothingDone,
      "database-read-only": nothingDone,
      "database-read-cut": nothingDone,
      "database-commit-cut": unknown,
      "database-cut-unnoted": unknown,
      "wrapped-database-refused": nothingDone,
    });
    const timedOut = await instance.inject({ method: "GET", url: "/failure/no-answer" });
    assert.deepEqual(timedOut.json(), { code: 2001, message: "upstream request timed out", data: null });
    const unreachable = await instance.inject({ method: "GET", url: "/failure/database-refused" });
    assert.deepEqual(unreachable.json(), {
      code: 2002,
      message: "upstream could not be reached",
      data: null,
    });
  });

  it("answers a book that does not exist yet with HTTP 200 and code 4054", async () => {
    const response = await (await app()).inject({ method: "GET", url: "/not-ready" });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      code: 4054,
      message: "CLOB order book is not initialized",
      data: null,
    });
  });

  it("answers an unknown route with 404/1404", async () => {
    const response = await (await app()).inject({ method: "GET", url: "/nowhere" });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), {
      code: 1404,
      message: "resource not found: Route not found",
      data: null,
    });
  });

  it("maps every rejection kind of src/core/errors.ts", () => {
    assert.deepEqual(fromRejection(reject("INSUFFICIENT_BALANCE")), {
      status: 400,
      code: 1001,
      message: "bad request: Insufficient balance",
    });
    assert.deepEqual(fromRejection(reject("PRICE_NOT_ON_TICK")).code, 1001);
    assert.deepEqual(fromRejection(reject("MARKET_NOT_FOUND")), {
      status: 404,
      code: 1404,
      message: "resource not found: Market not found",
    });
    assert.deepEqual(fromRejection(reject("INVALID_INPUT", "LIMIT order requires numeric limitPrice")), {
      status: 400,
      code: 1001,
      message: "bad request: LIMIT order requires numeric limitPrice",
    });
    assert.equal(fromRejection(reject("BOOK_NOT_INITIALIZED")).code, 4054);
  });
});
