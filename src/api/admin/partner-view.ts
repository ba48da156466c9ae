// A partner as the operator sees it, never a secret: the answer of GET and POST
// /admin/partners/{merchantId} (routes/partner-settings.ts) and each record of GET /admin/partners
// (routes/partners-list.ts, which adds the user count). One shape and one mapping for both.

import { Type } from "typebox";
import { isoSeconds } from "../../contract/wire-format.js";
import type { PartnerRecord } from "../../store/identity.js";

const bpsPerUnit = 10_000;

export const PartnerViewFields = {
  merchantId: Type.String(),
  name: Type.String(),
  appKey: Type.String(),
  commissionRate: Type.String({ description: "0 to 1, decimal string" }),
  webhookUrl: Type.Union([Type.String(), Type.Null()]),
  signedNonceRequired: Type.Boolean({
    description: "Requests other than GET, HEAD and OPTIONS must sign an x-ca-nonce (401/1401 otherwise)",
  }),
  createdAt: Type.String({ description: "ISO 8601 UTC" }),
};

export const PartnerView = Type.Object(PartnerViewFields);

type PartnerViewSource = Pick<
  PartnerRecord,
  "partnerId" | "name" | "appKey" | "commissionRateBps" | "webhookUrl" | "signedNonceRequired" | "createdAtMs"
>;

export function partnerView(partner: PartnerViewSource) {
  return {
    merchantId: String(partner.partnerId),
    name: partner.name,
    appKey: partner.appKey,
    commissionRate: String(partner.commissionRateBps / bpsPerUnit),
    webhookUrl: partner.webhookUrl,
    signedNonceRequired: partner.signedNonceRequired,
    createdAt: isoSeconds(partner.createdAtMs),
  };
}
