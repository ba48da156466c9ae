// Secrets the platform creates for itself on first start (the master key, the admin token) live in
// the data dir, readable by the owner only, and are reused on every later start.

import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";

export interface LoadedSecret {
  readonly value: string;
  /** True when this call created the file: the caller prints a newly made admin token once. */
  readonly created: boolean;
}

export function loadOrCreateSecretFile(path: string, create: () => string): LoadedSecret {
  try {
    return { value: readFileSync(path, "utf8").trim(), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const value = create();
  // "wx" fails if another process created the file meanwhile, instead of overwriting its secret.
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(path, 0o600);
  return { value, created: true };
}

export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}

/** Writes a file only its owner may read, replacing any earlier one. */
export function writePrivateFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}
