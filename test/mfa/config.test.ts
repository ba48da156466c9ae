import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, defaultMailFrom, loadConfig } from "../../src/config.js";

describe("MFA mail configuration", () => {
  it("writes mail to the outbox file unless PREDEX_SMTP_URL is set", () => {
    const config = loadConfig({});
    assert.equal(config.smtpUrl, undefined);
    assert.equal(config.mailFrom, defaultMailFrom);
  });

  it("takes an smtp:// or smtps:// URL and a From address", () => {
    const config = loadConfig({
      PREDEX_SMTP_URL: "smtps://user:pass@mail.example.com:465",
      PREDEX_MAIL_FROM: "Exchange <security@example.com>",
    });
    assert.equal(config.smtpUrl, "smtps://user:pass@mail.example.com:465");
    assert.equal(config.mailFrom, "Exchange <security@example.com>");
  });

  it("refuses anything else as PREDEX_SMTP_URL", () => {
    for (const value of ["mail.example.com", "http://mail.example.com", "smtp://"]) {
      assert.throws(() => loadConfig({ PREDEX_SMTP_URL: value }), ConfigError, value);
    }
  });
});
