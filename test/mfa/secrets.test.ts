import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import {
  createCodeHasher,
  createEmailCode,
  createRecoveryCodes,
  createTicket,
  isEmailCodeShaped,
  normalizeRecoveryCode,
} from "../../src/mfa/secrets.js";

describe("MFA codes and tickets", () => {
  it("makes 6-digit email codes", () => {
    for (let index = 0; index < 100; index += 1) assert.ok(isEmailCodeShaped(createEmailCode()));
  });

  it("makes ten distinct recovery codes shaped XXXXX-XXXXX without confusable letters", () => {
    const codes = createRecoveryCodes();
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const code of codes) assert.match(code, /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
  });

  it("reads recovery codes whatever their case, spacing and hyphens, and O/I/L as 0/1/1", () => {
    assert.equal(normalizeRecoveryCode("ab1cd-ef2gh"), "AB1CDEF2GH");
    assert.equal(normalizeRecoveryCode(" AB1CD EF2GH "), "AB1CDEF2GH");
    assert.equal(normalizeRecoveryCode("oilab-cdefg"), "011ABCDEFG");
    assert.equal(normalizeRecoveryCode("ABCDE"), undefined);
    assert.equal(normalizeRecoveryCode("ABCDE-FGHU1"), undefined);
  });

  it("hashes codes per user and per kind, under a key only the master key gives", () => {
    const masterKey = randomBytes(32);
    const hasher = createCodeHasher(masterKey);
    const hash = hasher.hash(1, "email", "123456");
    assert.equal(hasher.hash(1, "email", "123456"), hash);
    assert.notEqual(hasher.hash(2, "email", "123456"), hash);
    assert.notEqual(hasher.hash(1, "recovery", "123456"), hash);
    assert.notEqual(createCodeHasher(randomBytes(32)).hash(1, "email", "123456"), hash);
    assert.ok(!hash.includes("123456"));
  });

  it("makes tickets with 256 bits of randomness and a recognisable prefix", () => {
    const ticket = createTicket();
    assert.match(ticket, /^mfat_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(createTicket(), ticket);
  });
});
