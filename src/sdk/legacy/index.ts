// The predex SDK for the earlier interface (spec 001): RSA-signed authorize, JWT, asynchronous
// orders, and verification of the merchant webhooks.

export { legacyPaths } from "../../contract/legacy/paths.js";
export { verifyWebhook } from "../../contract/signing/webhook-signature.js";
export {
  defaultLegacyRetryPolicy,
  LegacyClient,
  type LegacyClientOptions,
  type LegacyEnvelope,
  type LegacyRetryPolicy,
} from "./client.js";
export { LegacyApiError, LegacyError, LegacyNetworkError, SubmitOutcomeUnknownError } from "./errors.js";
export { newNonce, signAuthorizeRequest } from "./signer.js";
