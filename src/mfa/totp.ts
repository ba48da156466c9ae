// RFC 6238 TOTP through otplib (v13, functional API, its default audited noble/scure plugins): a
// secret for authenticator apps, its otpauth URI, and a check with a ±1 step window and replay
// refusal. The clock is an input; otplib never reads Date.now() here.

import { generateSecret, generateSync, generateURI, verifySync } from "otplib";
import { totpDigits, totpIssuer, totpPeriodSeconds, totpSecretBytes, totpWindowSteps } from "./policy.js";

export type TotpCheck =
  | { readonly kind: "accepted"; readonly timeStep: number }
  /** The code is right, but a code of its time step (or a later one) was accepted already. */
  | { readonly kind: "replayed" }
  | { readonly kind: "wrong" };

const codePattern = new RegExp(`^[0-9]{${totpDigits}}$`);

/** A fresh Base32 secret, as authenticator apps take it. */
export function createTotpSecret(): string {
  return generateSecret({ length: totpSecretBytes });
}

export function totpUri(secret: string, accountName: string): string {
  return generateURI({
    issuer: totpIssuer,
    label: accountName,
    secret,
    digits: totpDigits,
    period: totpPeriodSeconds,
  });
}

export function totpTimeStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / totpPeriodSeconds);
}

/** The code an authenticator shows at `nowMs`; tests and the demo use it. */
export function totpCodeAt(secret: string, nowMs: number): string {
  return generateSync({
    secret,
    epoch: Math.floor(nowMs / 1000),
    digits: totpDigits,
    period: totpPeriodSeconds,
  });
}

/**
 * Accepts a code of the current step or the one before or after it. `lastUsedTimeStep` is the step
 * of the last accepted code: that step and earlier ones are refused, so a code works once.
 */
export function checkTotpCode(
  secret: string,
  code: string,
  nowMs: number,
  lastUsedTimeStep: number | null,
): TotpCheck {
  if (!codePattern.test(code)) return { kind: "wrong" };
  const epoch = Math.floor(nowMs / 1000);
  const options = {
    secret,
    token: code,
    epoch,
    digits: totpDigits,
    period: totpPeriodSeconds,
    epochTolerance: totpWindowSteps * totpPeriodSeconds,
  } as const;
  const fresh =
    lastUsedTimeStep === null
      ? verifySync(options)
      : // otplib throws on an afterTimeStep beyond the window; every step in the window is refused then anyway.
        verifySync({
          ...options,
          afterTimeStep: Math.min(lastUsedTimeStep, totpTimeStep(nowMs) + totpWindowSteps),
        });
  if (fresh.valid && "timeStep" in fresh) return { kind: "accepted", timeStep: fresh.timeStep };
  if (lastUsedTimeStep !== null && verifySync(options).valid) return { kind: "replayed" };
  return { kind: "wrong" };
}
