// A partner row for store tests that need one to hang users and sessions on, and care about none of
// its fields.

import type { NewPartner } from "../../src/store/identity.js";

export const placeholderPartner: NewPartner = {
  name: "p",
  appKey: "k",
  appSecretSealed: "s",
  apiKeySha256: "h",
  rsaPublicKey: null,
  commissionRateBps: 0,
  webhookUrl: null,
  createdAtMs: 0,
};
