// The predex partner SDK: sign, call, recover.

export {
  type ApiEnvelope,
  defaultRetryPolicy,
  PredexClient,
  type PredexClientOptions,
  type RetryPolicy,
} from "./client.js";
export { GatewayError, NetworkError, PredexApiError, PredexError } from "./errors.js";
export { restPaths, socketPaths, userSocketPaths } from "./paths.js";
export { type GatewayCredentials, type QueryParams, signRequest, signWebSocketUpgrade } from "./signer.js";
