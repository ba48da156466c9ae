// Every limit of the MFA subsystem, in one place, named with its unit last. docs/decisions.md
// ("MFA") explains the choices; tests import these instead of repeating the numbers.

import type { WireTicketPurpose, WireVerifyMethod } from "../contract/partner/mfa.js";

/** RFC 6238 time step; the value every authenticator app assumes. */
export const totpPeriodSeconds = 30;
/** Codes of the previous and next step are accepted too, for clocks that drift a little. */
export const totpWindowSteps = 1;
export const totpDigits = 6;
/** 160 bits, the size RFC 4226 recommends and authenticator apps expect. */
export const totpSecretBytes = 20;
/** A setup that is not confirmed with a code within this time must be started again. */
export const totpSetupTtlMs = 15 * 60_000;
/** The name authenticator apps show above the code. */
export const totpIssuer = "predex";

export const emailCodeDigits = 6;
export const emailCodeTtlMs = 10 * 60_000;
/** At most one email code per this interval… */
export const emailSendIntervalMs = 60_000;
/** …and at most this many per rolling window. */
export const emailSendsPerWindowMax = 5;
export const emailSendWindowMs = 60 * 60_000;

export const recoveryCodeCount = 10;
/** Characters of one recovery code (shown as two groups of five); 50 bits of randomness. */
export const recoveryCodeLength = 10;

/** Consecutive failed code checks that lock the user's MFA… */
export const failedAttemptsMax = 5;
/** …for this long. */
export const lockDurationMs = 15 * 60_000;

export const ticketTtlMs = 5 * 60_000;
export const ticketBytes = 32;

/** The operations a ticket can authorize; a ticket is good only for the purpose it was issued for. */
export const ticketPurposes = ["withdraw"] as const;
export type TicketPurpose = (typeof ticketPurposes)[number];
export const defaultTicketPurpose: TicketPurpose = "withdraw";

export const verifyMethods = ["totp", "email", "recovery"] as const;
export type VerifyMethod = (typeof verifyMethods)[number];

// The wire enums (src/contract) and these lists must stay the same set; this fails to compile otherwise.
type SameSet<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies SameSet<WireVerifyMethod, VerifyMethod>;
true satisfies SameSet<WireTicketPurpose, TicketPurpose>;
