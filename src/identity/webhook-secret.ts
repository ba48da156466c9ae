// The per-merchant secret that signs webhooks (Standard Webhooks: `whsec_` + base64 key bytes).
// Derived from the APP Secret with HMAC rather than stored: it needs no column, it is shown once
// with the other credentials at partner creation, and it changes when the APP Secret does. Knowing
// it reveals nothing about the APP Secret (HMAC is one-way).

import { createHmac } from "node:crypto";

const derivationLabel = "predex merchant webhook secret v1";

export function deriveWebhookSecret(appSecret: string): string {
  return `whsec_${createHmac("sha256", appSecret).update(derivationLabel, "utf8").digest("base64")}`;
}
