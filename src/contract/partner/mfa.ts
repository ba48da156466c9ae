// Schemas of the seven MFA operations under /user/mfa/ (spec 000 lists them without shapes; the
// shapes are ours, recorded in docs/decisions.md "MFA"). Codes are plain strings here: whether a
// code is right, expired or malformed is the MFA service's answer (6001/6002), not a 400/1001.

import { type Static, type TSchema, Type } from "typebox";
import { ErrorEnvelope, NonEmptyString, partnerResponses } from "./envelope.js";

const IsoTime = Type.String({ description: "ISO 8601 UTC" });
const NullableIsoTime = Type.Union([IsoTime, Type.Null()]);
const Code = NonEmptyString({
  maxLength: 64,
  description: "A 6-digit TOTP or email code, or a recovery code such as `7K3QD-M9XTP`",
});
const ProofMethod = Type.Union([Type.Literal("totp"), Type.Literal("recovery")], {
  description: "What `code` is; default `totp`",
});
// Spelled out (not mapped from src/mfa/policy.ts) so TypeBox keeps the literal types.
const VerifyMethod = Type.Union([Type.Literal("totp"), Type.Literal("email"), Type.Literal("recovery")], {
  description: "`totp`, `email` (a code from POST /user/mfa/email/send) or `recovery`",
});
const Purpose = Type.Union([Type.Literal("withdraw")], {
  description: "The operation the ticket is for; default `withdraw`",
});

/** The statuses an MFA operation can answer with: the surface's own, plus the lock, the send limit and the mail server. */
export function mfaResponses<Data extends TSchema>(data: Data) {
  return {
    ...partnerResponses(data),
    423: ErrorEnvelope,
    429: ErrorEnvelope,
    502: ErrorEnvelope,
  };
}

export const MfaStatus = Type.Object({
  mfaEnabled: Type.Boolean({ description: "TOTP is on; withdrawals then need an MFA ticket" }),
  totpEnabled: Type.Boolean(),
  totpEnabledAt: NullableIsoTime,
  totpSetupPending: Type.Boolean({
    description: "A setup can still be confirmed with /user/mfa/totp/enable",
  }),
  email: Type.String({ description: "Where email codes go, masked: `a***@example.com`" }),
  recoveryCodesRemaining: Type.Integer(),
  availableMethods: Type.Array(VerifyMethod, { description: "Methods /user/mfa/verify accepts now" }),
  attemptsRemaining: Type.Integer({ description: "Wrong codes left before the lock" }),
  lockedUntil: NullableIsoTime,
});
export type MfaStatus = Static<typeof MfaStatus>;

export const TotpSetup = Type.Object({
  secret: Type.String({ description: "Base32; shown once, for manual entry in an authenticator app" }),
  otpauthUri: Type.String({ description: "`otpauth://totp/…` for a QR code" }),
  issuer: Type.String(),
  algorithm: Type.Literal("SHA1"),
  digits: Type.Integer(),
  period: Type.Integer({ description: "Seconds per code" }),
  expiresAt: Type.String({
    description: "Confirm with /user/mfa/totp/enable before this time (ISO 8601 UTC)",
  }),
});
export type TotpSetup = Static<typeof TotpSetup>;

export const TotpEnableRequest = Type.Object({ code: Code });
export type TotpEnableRequest = Static<typeof TotpEnableRequest>;

export const TotpEnabled = Type.Object({
  mfaEnabled: Type.Boolean(),
  enabledAt: IsoTime,
  recoveryCodes: Type.Array(Type.String(), {
    description: "Shown once; each works once, in place of a TOTP code",
  }),
});
export type TotpEnabled = Static<typeof TotpEnabled>;

/** Proof for disabling TOTP or replacing recovery codes: a TOTP code or a recovery code. */
export const CodeProofRequest = Type.Object({ code: Code, method: Type.Optional(ProofMethod) });
export type CodeProofRequest = Static<typeof CodeProofRequest>;

export const TotpDisabled = Type.Object({ mfaEnabled: Type.Boolean(), disabledAt: IsoTime });
export type TotpDisabled = Static<typeof TotpDisabled>;

export const EmailCodeSent = Type.Object({
  email: Type.String({ description: "The masked address the code went to" }),
  expiresAt: IsoTime,
  nextSendAt: Type.String({ description: "The earliest time another code can be sent (ISO 8601 UTC)" }),
});
export type EmailCodeSent = Static<typeof EmailCodeSent>;

export const VerifyRequest = Type.Object({
  method: VerifyMethod,
  code: Code,
  purpose: Type.Optional(Purpose),
});
export type VerifyRequest = Static<typeof VerifyRequest>;

export const MfaTicket = Type.Object({
  ticket: Type.String({ description: "Send as `mfaTicket`; works once, for `purpose`, until `expiresAt`" }),
  purpose: Purpose,
  method: VerifyMethod,
  expiresAt: IsoTime,
});
export type MfaTicket = Static<typeof MfaTicket>;

export const RecoveryCodes = Type.Object({
  recoveryCodes: Type.Array(Type.String(), { description: "Shown once; every earlier code stops working" }),
  createdAt: IsoTime,
});
export type RecoveryCodes = Static<typeof RecoveryCodes>;

/** The wire enums; mfa/policy.ts checks at compile time that its lists are the same sets. */
export type WireVerifyMethod = Static<typeof VerifyMethod>;
export type WireTicketPurpose = Static<typeof Purpose>;
