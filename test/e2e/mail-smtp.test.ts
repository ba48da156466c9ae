// MFA email over real SMTP: PREDEX_SMTP_URL points at an SMTP server on loopback (smtp-server),
// the code is read from the message it received and used at POST /user/mfa/verify. Without the
// variable the platform says at start, loudly, that codes go to a local file.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { SMTPServer } from "smtp-server";
import { startTestPlatform, type TestPlatform } from "./harness.js";

interface ReceivedMail {
  readonly to: readonly string[];
  readonly raw: string;
}

const received: ReceivedMail[] = [];
let smtp: SMTPServer;
let smtpPort: number;
before(async () => {
  smtp = new SMTPServer({
    // A loopback test server: no TLS to negotiate, no login to check.
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          to: session.envelope.rcptTo.map((address) => address.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

describe("MFA email through PREDEX_SMTP_URL", () => {
  let platform: TestPlatform;
  before(async () => {
    platform = await startTestPlatform({ env: { PREDEX_SMTP_URL: `smtp://127.0.0.1:${smtpPort}` } });
  });
  after(() => platform.close());

  it("delivers the code over SMTP, and the code verifies", async () => {
    const { client, user } = await platform.registeredUser();
    await client.sendMfaEmailCode();
    const mail = received.find((message) => message.to.includes(user.email));
    assert.ok(mail !== undefined, `a message to ${user.email}`);
    const code = /\b(\d{6})\b/.exec(mail.raw.split("\r\n\r\n").slice(1).join("\n"))?.[1];
    assert.ok(code !== undefined, mail.raw);
    const ticket = await client.verifyMfa({ method: "email", code });
    assert.equal(ticket.method, "email");
    // Nothing went to the local outbox.
    assert.equal(existsSync(join(platform.dataDir, "mail", "outbox.jsonl")), false);
  });
});

describe("without PREDEX_SMTP_URL", () => {
  it("warns at start that one-time codes are written to a local file, naming it", async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const platform = await startTestPlatform({ platform: { logger } });
    try {
      const warning = lines.find((line) => line.level === 40 && /PREDEX_SMTP_URL/.test(line.msg));
      assert.ok(warning !== undefined, JSON.stringify(lines));
      assert.ok(warning.msg.includes(join(platform.dataDir, "mail", "outbox.jsonl")), warning.msg);
    } finally {
      await platform.close();
    }
  });
});
