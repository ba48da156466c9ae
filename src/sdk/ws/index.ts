// The SDK's WebSocket clients: signed channels (SignedSocket), a live local book
// (BookSubscription), live views of the user channels (User*Subscription), the user's fills
// (UserTradesSubscription) and the public market channel (MarketSocket).

export { type BackoffPolicy, defaultBackoffPolicy, type SdkLogger, silentLogger } from "./backoff.js";
export {
  BookSubscription,
  type BookSubscriptionOptions,
  type BookSubscriptionState,
} from "./book-subscription.js";
export { type BookDelta, type BookSeed, LocalBook } from "./local-book.js";
export {
  type MarketEvent,
  MarketSocket,
  type MarketSocketOptions,
  type MarketSocketState,
} from "./market-socket.js";
export { HandshakeError, SignedSocket, type SignedSocketOptions, type SocketState } from "./signed-socket.js";
export {
  UserBalanceSubscription,
  UserOpenOrdersSubscription,
  UserPositionsSubscription,
  type UserPositionsSubscriptionOptions,
  type UserSubscriptionOptions,
  type UserSubscriptionState,
} from "./user-subscription.js";
export {
  catchUpPageSize,
  catchUpPagesMax,
  type UserTradesState,
  UserTradesSubscription,
  type UserTradesSubscriptionOptions,
} from "./user-trades-subscription.js";
