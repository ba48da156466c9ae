// Why an MFA operation refuses, as values, and the one table that says how each refusal travels on
// the current interface. The spec: MFA business errors keep `{code, message, data}` and are not
// rewritten into the gateway's codes, so they have their own range (DESIGN §4): 6001–6005. State
// conflicts that are not about a code (TOTP already enabled, setup not started) are the interface's
// ordinary 400/1001, and a mail server that cannot be reached is its 502/2002.

import { isoSeconds } from "../contract/wire-format.js";

export const mfaErrorCodes = {
  invalidCode: 6001,
  expired: 6002,
  locked: 6003,
  rateLimited: 6004,
  methodDisabled: 6005,
  conflict: 1001,
  mailUnavailable: 2002,
} as const;

export type MfaErrorCode = (typeof mfaErrorCodes)[keyof typeof mfaErrorCodes];

/**
 * HTTP status of each code, decided once: a wrong, expired or unusable code is the client's input
 * (400); a lock is 423 Locked and a send limit 429 Too Many Requests, so a partner that matches on
 * the status first (as the spec asks) can tell "wait for the lock" from "wait before resending".
 */
export const mfaHttpStatus = {
  6001: 400,
  6002: 400,
  6003: 423,
  6004: 429,
  6005: 400,
  1001: 400,
  2002: 502,
} as const satisfies Record<MfaErrorCode, number>;

export interface MfaRejection {
  readonly code: MfaErrorCode;
  readonly message: string;
  /** When the lock ends or the next send is allowed; surfaces send it as `Retry-After`. */
  readonly retryAtMs?: number;
}

export type MfaResult<Value> =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly rejection: MfaRejection };

export function succeed<Value>(value: Value): MfaResult<Value> {
  return { ok: true, value };
}

export function refuse<Value = never>(rejection: MfaRejection): MfaResult<Value> {
  return { ok: false, rejection };
}

export const mfaRejections = {
  invalidCode: { code: 6001, message: "Invalid verification code" },
  codeAlreadyUsed: { code: 6001, message: "Verification code has already been used" },
  invalidTicket: { code: 6001, message: "Invalid MFA ticket" },
  ticketAlreadyUsed: { code: 6001, message: "MFA ticket has already been used" },
  codeExpired: { code: 6002, message: "Verification code has expired" },
  ticketExpired: { code: 6002, message: "MFA ticket has expired" },
  setupExpired: { code: 6002, message: "TOTP setup has expired; start it again" },
  totpDisabled: { code: 6005, message: "TOTP is not enabled" },
  recoveryDisabled: { code: 6005, message: "No recovery codes: TOTP is not enabled" },
  totpAlreadyEnabled: { code: 1001, message: "bad request: TOTP is already enabled" },
  setupNotStarted: {
    code: 1001,
    message: "bad request: No TOTP setup to confirm; call /user/mfa/totp/setup",
  },
  stateChanged: { code: 1001, message: "bad request: MFA settings changed meanwhile; try again" },
  mailUnavailable: { code: 2002, message: "upstream unavailable: The mail server could not be reached" },
} as const satisfies Record<string, MfaRejection>;

export function locked(untilMs: number): MfaRejection {
  return {
    code: mfaErrorCodes.locked,
    message: `Too many failed attempts; MFA is locked until ${isoSeconds(untilMs)}`,
    retryAtMs: untilMs,
  };
}

export function rateLimited(retryAtMs: number): MfaRejection {
  return {
    code: mfaErrorCodes.rateLimited,
    message: `Too many email codes requested; try again after ${isoSeconds(retryAtMs)}`,
    retryAtMs,
  };
}

/** The wire form of a refusal: status, body (`data` always null) and headers. */
export function mfaErrorResponse(
  rejection: MfaRejection,
  nowMs: number,
): {
  status: (typeof mfaHttpStatus)[MfaErrorCode];
  body: { code: MfaErrorCode; message: string; data: null };
  headers: Record<string, string>;
} {
  const headers: Record<string, string> =
    rejection.retryAtMs === undefined
      ? {}
      : { "retry-after": String(Math.max(1, Math.ceil((rejection.retryAtMs - nowMs) / 1000))) };
  return {
    status: mfaHttpStatus[rejection.code],
    body: { code: rejection.code, message: rejection.message, data: null },
    headers,
  };
}
