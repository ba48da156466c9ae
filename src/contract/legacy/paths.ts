// Every path of the legacy listener the SDK calls, in one place (spec 001 "Endpoints").

export const legacyPaths = {
  authorize: "/api/user/openapi/authorize",
  orderSubmit: "/api/order/openapi/order/submit",
  claim: "/api/order/openapi/order/claim",
  positions: "/api/order/openapi/positions",
  userActivity: "/api/order/openapi/query-user-activity",
  category: "/api/market/openapi/category",
  marketList: "/api/market/openapi/market/list",
  marketOutcome: (marketId: number) => `/api/market/openapi/${encodeURIComponent(String(marketId))}/outcome`,
  topHolders: "/api/market/openapi/top-holders",
  notificationList: "/api/user/notification/list",
  monthlyBill: "/api/order/openapi/merchant-commission-bill/query/month",
  billDetail: "/api/order/openapi/bill/query-detail",
  marketApply: "/api/market/openapi/market/apply",
  challenge: "/api/market/openapi/challenge",
  requestResult: (fgRequestId: string) =>
    `/api/user/openapi/request/result/${encodeURIComponent(fgRequestId)}`,
} as const;
