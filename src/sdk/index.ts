// The predex partner SDK: sign, call, recover.

export {
  type AdminClientOptions,
  type CreatedPartner,
  type CreateMarketRequest,
  type Deposit,
  PredexAdminClient,
} from "./admin-client.js";
export {
  type ApiEnvelope,
  type BookRequest,
  defaultRetryPolicy,
  type OpenOrdersQuery,
  type PagedResult,
  PredexClient,
  type PredexClientOptions,
  type RetryPolicy,
  type TradesQuery,
} from "./client.js";
export { GatewayError, NetworkError, PredexApiError, PredexError } from "./errors.js";
export { restPaths, socketPaths, userSocketPaths } from "./paths.js";
export { type GatewayCredentials, type QueryParams, signRequest, signWebSocketUpgrade } from "./signer.js";
