import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkTotpCode, createTotpSecret, totpCodeAt, totpTimeStep, totpUri } from "../../src/mfa/totp.js";
import { startMs } from "./fixture.js";

const stepMs = 30_000;

describe("TOTP (RFC 6238 through otplib)", () => {
  const secret = createTotpSecret();

  it("makes a 32-character Base32 secret (160 bits) and an otpauth URI authenticator apps read", () => {
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const uri = new URL(totpUri(secret, "alice@example.com"));
    assert.equal(uri.protocol, "otpauth:");
    assert.equal(uri.host, "totp");
    assert.equal(decodeURIComponent(uri.pathname), "/predex:alice@example.com");
    assert.equal(uri.searchParams.get("secret"), secret);
    assert.equal(uri.searchParams.get("issuer"), "predex");
  });

  it("matches the RFC 6238 SHA-1 test vector", () => {
    // RFC 6238 appendix B: secret "12345678901234567890", T = 59 s → 94287082 (8 digits); 6 digits: 287082.
    const rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    assert.equal(totpCodeAt(rfcSecret, 59_000), "287082");
  });

  it("accepts the codes of the previous, current and next step, and no others", () => {
    const code = totpCodeAt(secret, startMs);
    for (const offsetMs of [-stepMs, 0, stepMs]) {
      assert.deepEqual(checkTotpCode(secret, code, startMs + offsetMs, null), {
        kind: "accepted",
        timeStep: totpTimeStep(startMs),
      });
    }
    for (const offsetMs of [-2 * stepMs, 2 * stepMs]) {
      assert.deepEqual(checkTotpCode(secret, code, startMs + offsetMs, null), { kind: "wrong" });
    }
  });

  it("refuses a code whose step, or a later one, was already used", () => {
    const code = totpCodeAt(secret, startMs);
    const step = totpTimeStep(startMs);
    assert.deepEqual(checkTotpCode(secret, code, startMs, step), { kind: "replayed" });
    assert.deepEqual(checkTotpCode(secret, code, startMs, step + 1), { kind: "replayed" });
    const next = totpCodeAt(secret, startMs + stepMs);
    assert.deepEqual(checkTotpCode(secret, next, startMs, step), { kind: "accepted", timeStep: step + 1 });
    // A last-used step far ahead (a clock moved back) refuses everything instead of throwing.
    assert.deepEqual(checkTotpCode(secret, code, startMs, step + 100), { kind: "replayed" });
  });

  it("treats malformed codes as wrong without throwing", () => {
    for (const code of ["", "12345", "1234567", "abcdef", " 123456", "12 345"]) {
      assert.deepEqual(checkTotpCode(secret, code, startMs, null), { kind: "wrong" });
    }
  });
});
