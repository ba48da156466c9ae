// Standard Webhooks signing, pinned by the known-answer example of the Standard Webhooks spec.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  signWebhook,
  verifyWebhook,
  webhookSignature,
} from "../../src/contract/signing/webhook-signature.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const timestamp = 1614265330;
const body = '{"test": 2432232314}';

describe("webhook signatures", () => {
  it("match the Standard Webhooks example", () => {
    assert.equal(
      webhookSignature(secret, id, timestamp, body),
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
  });

  it("verify within the tolerance and refuse a changed body, id or old timestamp", () => {
    const headers = signWebhook(secret, id, timestamp, body);
    assert.ok(verifyWebhook(secret, headers, body, timestamp + 10));
    assert.equal(verifyWebhook(secret, headers, `${body} `, timestamp), false);
    assert.equal(verifyWebhook(secret, { ...headers, "webhook-id": "msg_other" }, body, timestamp), false);
    assert.equal(verifyWebhook(secret, headers, body, timestamp + 301), false);
    // Several signatures (a secret rotation): one match is enough.
    const rotated = { ...headers, "webhook-signature": `v1,AAAA ${headers["webhook-signature"]}` };
    assert.ok(verifyWebhook(secret, rotated, body, timestamp));
  });
});
