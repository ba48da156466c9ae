// Every path of the legacy listener the SDK calls, in one place (spec 001 "Endpoints").

export const legacyPaths = {
  authorize: "/api/user/openapi/authorize",
  orderSubmit: "/api/order/openapi/order/submit",
  claim: "/api/order/openapi/order/claim",
  positions: "/api/order/openapi/positions",
  userActivity: "/api/order/openapi/query-user-activity",
  requestResult: (fgRequestId: string) =>
    `/api/user/openapi/request/result/${encodeURIComponent(fgRequestId)}`,
} as const;
