// Standard Webhooks signing (standardwebhooks.com): `webhook-signature: v1,<base64 HMAC-SHA256>`
// over `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the bytes of a `whsec_<base64>` secret.
// The notifier signs with it; merchants (and the SDK, and our tests) verify with it.

import { createHmac, timingSafeEqual } from "node:crypto";

export const webhookSecretPrefix = "whsec_";
/** A receiver refuses a timestamp further than this from its clock, against replays. */
export const webhookTimestampToleranceSeconds = 300;

// A type alias, not an interface, so it also passes where any header record is expected.
export type WebhookHeaders = {
  readonly "webhook-id": string;
  readonly "webhook-timestamp": string;
  readonly "webhook-signature": string;
};

function secretBytes(secret: string): Buffer {
  const encoded = secret.startsWith(webhookSecretPrefix) ? secret.slice(webhookSecretPrefix.length) : secret;
  return Buffer.from(encoded, "base64");
}

export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const digest = createHmac("sha256", secretBytes(secret))
    .update(`${id}.${timestampSeconds}.${body}`, "utf8")
    .digest("base64");
  return `v1,${digest}`;
}

export function signWebhook(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): WebhookHeaders {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": webhookSignature(secret, id, timestampSeconds, body),
  };
}

/**
 * True when one of the space-separated `v1,` signatures matches and the timestamp is within the
 * tolerance of `nowSeconds`. `body` must be the raw text received, not a re-serialization.
 */
export function verifyWebhook(
  secret: string,
  headers: { readonly [name: string]: string | string[] | undefined },
  body: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): boolean {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false;
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  const seconds = Number(timestamp);
  if (Math.abs(nowSeconds - seconds) > webhookTimestampToleranceSeconds) return false;
  const expected = Buffer.from(webhookSignature(secret, id, seconds, body), "utf8");
  return signatures.split(" ").some((candidate) => {
    const given = Buffer.from(candidate, "utf8");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
