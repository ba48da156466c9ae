// The tests' one wait helper: it returns as soon as the condition holds, fails with what it waited
// for once its bound has passed, and retries a throwing check only when asked to.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitForValue, waitUntil } from "./wait-until.js";

describe("waitUntil", () => {
  it("returns once the condition holds, checking it again meanwhile", async () => {
    let checks = 0;
    await waitUntil(() => ++checks === 3, { intervalMs: 1 });
    assert.equal(checks, 3);
  });

  it("fails after its bound, naming what it waited for or, by default, the condition", async () => {
    await assert.rejects(
      waitUntil(() => false, { what: "the book to fill", timeoutMs: 20, intervalMs: 5 }),
      {
        message: "timed out after 20 ms waiting until the book to fill",
      },
    );
    const depth = 3;
    // The source as the loader compiled it (tsx drops the spaces).
    const condition = () => depth > 5;
    await assert.rejects(waitUntil(condition, { timeoutMs: 5, intervalMs: 1 }), {
      message: `timed out after 5 ms waiting until ${String(condition)}`,
    });
    await assert.rejects(
      waitUntil(() => false, { what: () => `depth ${depth}`, timeoutMs: 5, intervalMs: 1 }),
      {
        message: "timed out after 5 ms waiting until depth 3",
      },
    );
  });

  it("ends at a check's error, unless told to retry it; then the failure names the last one", async () => {
    let checks = 0;
    await assert.rejects(
      waitUntil(() => {
        checks++;
        throw new Error("refused");
      }),
      { message: "refused" },
    );
    assert.equal(checks, 1);
    let attempts = 0;
    const value = await waitForValue(
      () => {
        if (++attempts < 3) throw new Error("not yet");
        return "ready";
      },
      { retryErrors: true, intervalMs: 1 },
    );
    assert.equal(value, "ready");
    await assert.rejects(
      waitForValue(
        () => {
          throw new Error("still down");
        },
        { what: "the server", retryErrors: true, timeoutMs: 5, intervalMs: 1 },
      ),
      { message: "timed out after 5 ms waiting until the server; the last check failed: Error: still down" },
    );
  });
});
