// Authentication of the commands an API node forwards to the engine leader: an HMAC-SHA256 of the
// request's time and body under a key derived from the shared PREDEX_MASTER_KEY (every node of a
// deployment has it already), so no further secret is configured. The time bounds a replay to a
// short window, and inside it the leader answers a repeated command id with the first answer
// (command-server.ts), so a captured request cannot place an order twice.

import { createHmac, timingSafeEqual } from "node:crypto";

/** A signed request older or newer than this (either side's clock) is refused. */
export const commandSignatureWindowMs = 30_000;

export const commandTimeHeader = "x-predex-time";
export const commandSignatureHeader = "x-predex-signature";

/** The forwarding key: never the master key itself, so a leaked forwarding key reveals nothing else. */
export function deriveCommandKey(masterKey: Buffer): Buffer {
  return createHmac("sha256", masterKey).update("predex/engine-command-forwarding/v1").digest();
}

export function signCommand(key: Buffer, timeMs: number, body: string): string {
  return createHmac("sha256", key).update(`${timeMs}\n`).update(body).digest("hex");
}

/** Undefined when the signature holds and the time is inside the window; otherwise why not. */
export function commandSignatureProblem(
  key: Buffer,
  timeHeader: string | undefined,
  signatureHeader: string | undefined,
  body: string,
  nowMs: number,
): string | undefined {
  if (timeHeader === undefined || signatureHeader === undefined) return "unsigned";
  const timeMs = Number(timeHeader);
  if (!Number.isSafeInteger(timeMs)) return "bad time";
  if (Math.abs(nowMs - timeMs) > commandSignatureWindowMs) return "time outside the window";
  const expected = Buffer.from(signCommand(key, timeMs, body), "hex");
  const given = Buffer.from(signatureHeader, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "bad signature";
  return undefined;
}
