// continueHookAfter (src/api/shared/hook-continuation.ts): a callback-style hook that waits for a
// promise calls `done` exactly once whatever happens, and never leaves a rejection unhandled.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FastifyRequest } from "fastify";
import { continueHookAfter } from "../../../src/api/shared/hook-continuation.js";

function recorder() {
  const calls: (Error | undefined)[] = [];
  const logged: unknown[] = [];
  const request = { log: { error: (fields: unknown) => logged.push(fields) } } as unknown as FastifyRequest;
  return { calls, logged, request, done: (error?: Error) => calls.push(error) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("continueHookAfter", () => {
  it("hands the value to the continuation, which goes on by calling done", async () => {
    const { calls, request, done } = recorder();
    const seen: number[] = [];
    continueHookAfter(
      request,
      Promise.resolve(7),
      (value, next) => {
        seen.push(value);
        next();
      },
      done,
    );
    await turn();
    assert.deepEqual(seen, [7]);
    assert.deepEqual(calls, [undefined]);
  });

  it("ends the hook with the rejection's error", async () => {
    const { calls, request, done } = recorder();
    continueHookAfter(
      request,
      Promise.reject(new Error("store down")),
      () => assert.fail("not called"),
      done,
    );
    await turn();
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.message, "store down");
  });

  it("ends the hook with what the continuation threw before calling done", async () => {
    const { calls, request, done } = recorder();
    continueHookAfter(
      request,
      Promise.resolve(1),
      () => {
        throw new Error("bug in the check");
      },
      done,
    );
    await turn();
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.message, "bug in the check");
  });

  it("calls done once when the continuation throws after going on, and logs it", async () => {
    const { calls, logged, request, done } = recorder();
    continueHookAfter(
      request,
      Promise.resolve(1),
      (_, next) => {
        next();
        throw new Error("after");
      },
      done,
    );
    await turn();
    assert.deepEqual(calls, [undefined]);
    assert.equal(logged.length, 1);
  });

  it("ends the hook without going on when the continuation answers itself (no done)", async () => {
    const { calls, request, done } = recorder();
    continueHookAfter(request, Promise.resolve(1), () => {}, done);
    await turn();
    assert.deepEqual(calls, []);
  });
});
