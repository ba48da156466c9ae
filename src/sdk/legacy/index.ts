// The predex SDK for the earlier interface (spec 001): RSA-signed authorize, JWT, asynchronous
// orders, and verification of the merchant webhooks.

export { verifyWebhook } from "../../contract/signing/webhook-signature.js";
export {
  defaultLegacyRetryPolicy,
  LegacyClient,
  type LegacyClientOptions,
  type LegacyEnvelope,
  type LegacyRetryPolicy,
} from "./client.js";
export { LegacyApiError, LegacyError, LegacyNetworkError, SubmitOutcomeUnknownError } from "./errors.js";
export { legacyPaths } from "./paths.js";
export { newNonce, signAuthorizeRequest } from "./signer.js";
