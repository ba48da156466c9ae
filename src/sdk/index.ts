// The predex partner SDK: sign, call, recover.

export type {
  BestBidAskEvent,
  BookEvent,
  ClobPriceUpdate,
  LastTradePriceEvent,
  MarketChannelEvent,
  MarketPriceMessage,
  MarketResolvedEvent,
  NewMarketEvent,
  PriceChangeEvent,
  TickSizeChangeEvent,
  UserBalance,
  UserChannelStamp,
  UserInfoMessage,
  UserOpenOrdersChannelMessage,
  UserOpenOrdersSnapshot,
  UserOrder,
  UserOrderMessage,
  UserPosition,
  UserPositionMessage,
  UserPositionsChannelMessage,
  UserPositionsSnapshot,
} from "../contract/channels.js";
export type { ConvertRequest, ConvertResult } from "../contract/partner/convert.js";
export { restPaths, socketPaths, userSocketPaths } from "../contract/paths.js";
export {
  type AdminCategory,
  type AdminClientOptions,
  type AdminWithdrawal,
  type AdminWithdrawalsQuery,
  type CreateCategoryRequest,
  type CreatedPartner,
  type CreateMarketRequest,
  type Deposit,
  type DepositRequest,
  PredexAdminClient,
  type UpdateCategoryRequest,
} from "./admin-client.js";
export {
  type AccountHistoryRequest,
  type ApiEnvelope,
  type BookRequest,
  type CategoryTreeRequest,
  defaultRetryPolicy,
  type MarketListRequest,
  type OpenOrdersQuery,
  type PagedResult,
  PredexClient,
  type PredexClientOptions,
  type RetryPolicy,
  type SearchRequest,
  type TradesQuery,
  type WalletHistoryRequest,
} from "./client.js";
export { GatewayError, NetworkError, PredexApiError, PredexError } from "./errors.js";
export { type GatewayCredentials, type QueryParams, signRequest, signWebSocketUpgrade } from "./signer.js";
export {
  BookSubscription,
  type BookSubscriptionOptions,
  HandshakeError,
  LocalBook,
  type MarketEvent,
  MarketSocket,
  type SdkLogger,
  SignedSocket,
  UserBalanceSubscription,
  UserOpenOrdersSubscription,
  UserPositionsSubscription,
  type UserPositionsSubscriptionOptions,
  type UserSubscriptionOptions,
  type UserSubscriptionState,
} from "./ws/index.js";
