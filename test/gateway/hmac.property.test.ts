// The gateway's HMAC-SHA256 (RFC 2104 over crypto.hash, src/contract/signing/gateway-signature.ts)
// against Node's createHmac: the same base64 for every key length (shorter than, equal to and longer
// than SHA-256's 64-byte block), every message (empty, non-ASCII, lone surrogates, longer than the
// reused input buffer), and whatever the order of secrets (the pads are cached per secret).

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import fc from "fast-check";
import { computeSignature } from "../../src/contract/signing/gateway-signature.js";

const nodeHmac = (secret: string, message: string) =>
  createHmac("sha256", secret).update(message, "utf8").digest("base64");

describe("gateway HMAC-SHA256", () => {
  it("equals createHmac for any secret and message", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 150 }),
        fc.string({ unit: "binary", maxLength: 600 }),
        (secret, message) => assert.equal(computeSignature(secret, message), nodeHmac(secret, message)),
      ),
      { numRuns: 3_000 },
    );
  });

  it("equals createHmac at the block-size edges and past the reused buffer", () => {
    for (const secretLength of [0, 1, 63, 64, 65, 128]) {
      const secret = "k".repeat(secretLength);
      for (const messageLength of [0, 1, 4_031, 4_032, 4_033, 70_000]) {
        const message = "m".repeat(messageLength);
        assert.equal(
          computeSignature(secret, message),
          nodeHmac(secret, message),
          `${secretLength}/${messageLength}`,
        );
      }
    }
    // A long message, then a short one: the short one must not see the long one's bytes.
    assert.equal(computeSignature("s", "é".repeat(3_000)), nodeHmac("s", "é".repeat(3_000)));
    assert.equal(computeSignature("s", "x"), nodeHmac("s", "x"));
  });
});
