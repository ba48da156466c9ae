import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { createSecretBox } from "../../src/identity/secret-box.js";

describe("secret box", () => {
  const box = createSecretBox(randomBytes(32));

  it("opens what it sealed, and seals the same secret differently each time", () => {
    const sealed = box.seal("app-secret", "app-key");
    assert.equal(box.open(sealed, "app-key"), "app-secret");
    assert.notEqual(box.seal("app-secret", "app-key"), sealed);
    assert.ok(!sealed.includes("app-secret"));
  });

  it("refuses a sealed secret moved to another APP Key, tampered with, or opened with another master key", () => {
    const sealed = box.seal("app-secret", "app-key");
    assert.throws(() => box.open(sealed, "other-key"));
    const parts = sealed.split(":");
    parts[3] = Buffer.from("tampered").toString("base64url");
    assert.throws(() => box.open(parts.join(":"), "app-key"));
    assert.throws(() => createSecretBox(randomBytes(32)).open(sealed, "app-key"));
  });

  it("needs a 32-byte master key", () => {
    assert.throws(() => createSecretBox(randomBytes(16)));
  });
});
