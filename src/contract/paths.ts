// Every path of the signed host the SDK calls, in one place (spec 000 "Endpoints").

export const restPaths = {
  userRegister: "/user/register",
  userProfile: "/user/profile",
  user: (userId: string) => `/user/${encodeURIComponent(userId)}`,
  mfaStatus: "/user/mfa/status",
  mfaTotpSetup: "/user/mfa/totp/setup",
  mfaTotpEnable: "/user/mfa/totp/enable",
  mfaTotpDisable: "/user/mfa/totp/disable",
  mfaEmailSend: "/user/mfa/email/send",
  mfaVerify: "/user/mfa/verify",
  mfaRecoveryCodes: "/user/mfa/recovery-codes",
  marketDetail: (marketId: string) => `/markets/${encodeURIComponent(marketId)}/detail`,
  marketsList: "/markets/list",
  categoryTree: "/markets/category-tree",
  marketHolders: (marketId: string) => `/markets/${encodeURIComponent(marketId)}/holders`,
  marketLiveVolume: (marketId: string) => `/markets/${encodeURIComponent(marketId)}/live-volume`,
  search: "/search",
  orderbookBook: "/orderbook/book",
  orderbookPrice: "/orderbook/price",
  createOrder: "/ordering/create-order",
  openOrders: "/ordering/open-orders",
  cancelOrder: "/ordering/cancel-order",
  trades: "/trades",
  accountAssets: "/account/assets",
  accountHistory: "/account/history",
  depositAddress: "/deposit/address",
  depositHistory: "/deposit/history",
  withdrawApply: "/withdraw/apply",
  withdrawCancel: "/withdraw/cancel",
  withdrawHistory: "/withdraw/history",
  accountPositions: "/account/positions",
  claim: "/ordering/claim",
  claimAll: "/ordering/claim_all",
  convert: "/ordering/convert",
  // The market makers' operations (DESIGN §9).
  createOrders: "/ordering/create-orders",
  cancelOrders: "/ordering/cancel-orders",
  cancelAll: "/ordering/cancel-all",
  amendOrder: "/ordering/amend-order",
  heartbeat: "/ordering/heartbeat",
} as const;

export const socketPaths = {
  clobPriceUpdate: "/socket/clob-price-update",
  marketPrice: "/socket/market-price",
  userInfo: "/socket/user-info",
  userPositions: "/socket/user-positions",
  userOpenOrders: "/socket/user-open-orders",
  userTrades: "/socket/user-trades",
} as const;

/** The user channels also sign the session cookie (spec 000 "Which credentials each endpoint type needs"). */
export const userSocketPaths: ReadonlySet<string> = new Set([
  socketPaths.userInfo,
  socketPaths.userPositions,
  socketPaths.userOpenOrders,
  socketPaths.userTrades,
]);
