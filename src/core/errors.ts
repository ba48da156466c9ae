// Every reason predex refuses something, in one list, grouped by subsystem (as exchange-core's
// CommandResultCode). A rejection is a value; each API surface maps it to its own envelope in one
// place (src/api/<surface>/errors.ts). `throw` is reserved for broken invariants.

/**
 * kind decides the HTTP shape on every surface:
 * - invalid:   the request is malformed (current: 400/1001; legacy: 400 or the table's code)
 * - refused:   well-formed, but the exchange says no (current: 400/1001; legacy: 422 + code)
 * - not_found: a named thing does not exist (current: 404/1404; legacy: 404 + code)
 * - not_ready: the thing exists but has no order book yet (current: 200/4054)
 * - forbidden: the caller may not do this (current: 400/1001; legacy: 403 + code)
 */
export type RejectionKind = "invalid" | "refused" | "not_found" | "not_ready" | "forbidden";

interface RejectionSpec {
  readonly kind: RejectionKind;
  /** The human text after the surface's prefix, e.g. "Insufficient balance". */
  readonly message: string;
}

export const rejectionSpecs = {
  // Input (any subsystem).
  INVALID_INPUT: { kind: "invalid", message: "Invalid request input" },
  PRECISION_EXCEEDED: { kind: "invalid", message: "More than 8 decimal places" },

  // Identity.
  USER_NOT_FOUND: { kind: "not_found", message: "User not found" },
  PARTNER_NOT_FOUND: { kind: "not_found", message: "Partner not found" },

  // Markets.
  MARKET_NOT_FOUND: { kind: "not_found", message: "Market not found" },
  OUTCOME_NOT_FOUND: { kind: "not_found", message: "Outcome not found" },
  OPTION_NOT_FOUND: { kind: "not_found", message: "Option not found" },
  CATEGORY_NOT_FOUND: { kind: "not_found", message: "Category not found" },
  MARKET_NOT_OPEN: { kind: "refused", message: "Market is not open" },
  BOOK_NOT_INITIALIZED: { kind: "not_ready", message: "CLOB order book is not initialized" },
  MARKET_STATUS_CONFLICT: {
    kind: "refused",
    message: "The current market status does not allow this operation",
  },

  // Risk: balances and holdings.
  INSUFFICIENT_BALANCE: { kind: "refused", message: "Insufficient balance" },
  INSUFFICIENT_SHARES: { kind: "refused", message: "Insufficient shares" },
  AMOUNT_OUT_OF_RANGE: { kind: "refused", message: "Amount not in range" },

  // Matching.
  ORDER_NOT_FOUND: { kind: "not_found", message: "Order not found" },
  ORDER_NOT_CANCELLABLE: { kind: "refused", message: "Order is not cancellable" },
  ORDER_NOT_AMENDABLE: { kind: "refused", message: "Order is no longer open" },
  DEAD_MANS_SWITCH_NOT_DUE: { kind: "refused", message: "The dead-man's switch is not due" },
  PRICE_OUT_OF_RANGE: { kind: "invalid", message: "Price must be between 0 and 1" },
  PRICE_NOT_ON_TICK: { kind: "invalid", message: "Price is not a multiple of the tick size" },
  SIZE_TOO_SMALL: { kind: "invalid", message: "Order size is below the minimum" },
  PRICE_PROTECTION: { kind: "refused", message: "Price is too far from the best price" },
  FOK_NOT_FILLED: { kind: "refused", message: "Fill-or-kill order could not be filled in full" },
  ORDER_EXPIRED: { kind: "invalid", message: "expiresAt must be in the future" },
  OPEN_ORDERS_LIMIT: { kind: "refused", message: "Too many open orders" },
  NO_LIQUIDITY: { kind: "refused", message: "No liquidity at an acceptable price" },
  SHARES_NOT_ON_STEP: { kind: "invalid", message: "Shares must be a multiple of 0.0001" },
  SIZE_TOO_LARGE: { kind: "invalid", message: "Order size is above the maximum" },
  BOOK_ORDERS_LIMIT: { kind: "refused", message: "Too many orders on this book" },
  MODEL_NOT_SUPPORTED: { kind: "refused", message: "This market model does not support the operation" },
  POST_ONLY_WOULD_TRADE: { kind: "refused", message: "Post-only order would trade at once" },
  MARKET_NOT_EXCLUSIVE: { kind: "refused", message: "Market is not exclusive" },

  // Settlement and claims.
  POSITION_NOT_FOUND: { kind: "not_found", message: "Position not found" },
  MARKET_NOT_SETTLED: { kind: "refused", message: "Market not settled" },
  NOTHING_TO_CLAIM: { kind: "refused", message: "No claimable rewards" },
  ALREADY_CLAIMED: { kind: "refused", message: "Already claimed" },
  NOT_MARKET_CREATOR: {
    kind: "forbidden",
    message: "Only the market's creator or the operator may resolve it",
  },

  // Wallet.
  DEPOSIT_DUPLICATE: { kind: "refused", message: "Deposit already credited" },
  WITHDRAWAL_NOT_FOUND: { kind: "not_found", message: "Withdrawal not found" },
  WITHDRAWAL_NOT_PENDING: { kind: "refused", message: "Withdrawal is not pending" },
  WITHDRAWAL_NOT_APPROVED: { kind: "refused", message: "Withdrawal is not approved" },
} as const satisfies Record<string, RejectionSpec>;

export type RejectionCode = keyof typeof rejectionSpecs;

export interface Rejection {
  readonly code: RejectionCode;
  /** Overrides the standard message where the spec asks for a specific text. */
  readonly message?: string;
}

export function reject(code: RejectionCode, message?: string): Rejection {
  return message === undefined ? { code } : { code, message };
}

export function rejectionKind(rejection: Rejection): RejectionKind {
  return rejectionSpecs[rejection.code].kind;
}

export function rejectionMessage(rejection: Rejection): string {
  return rejection.message ?? rejectionSpecs[rejection.code].message;
}
