// Where the master key (it encrypts APP Secrets, MFA secrets and more at rest) comes from.
//
// A key kept beside the database protects nothing: whoever copies the data dir (a backup, a
// snapshot of the volume) has both. So a production start (`predex serve` without --demo) never
// creates one there: it takes PREDEX_MASTER_KEY, or PREDEX_MASTER_KEY_FILE naming a file outside
// the data dir, and otherwise refuses to start, saying how to make a key. The demo (`npm start`,
// `serve --demo`) and tests keep the convenience of a key created in the data dir on first start.
// A production install that already has a key in the data dir (from an earlier version) still
// starts, with a warning, since refusing would lock its operator out of their own secrets.
//
// Part of composition (src/cli): it reads the settings and the file system before the services start,
// and hands the identity services the key itself.

import { readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { ConfigError, type PlatformConfig, parseMasterKey } from "../config.js";
import { masterKeyBytes } from "../identity/secret-box.js";
import { loadOrCreateSecretFile, randomToken } from "../identity/secret-files.js";

/** The key file the demo creates in the data dir. */
export const masterKeyFileName = "master.key";

/** `create-in-data-dir`: the demo and tests. `external`: a production start. */
export type MasterKeyPolicy = "create-in-data-dir" | "external";

export interface ResolvedMasterKey {
  readonly key: Buffer;
  /** What an operator should hear at start (a key in the data dir, a key file others can read). */
  readonly warnings: readonly string[];
}

export const masterKeyHelp = [
  "Give predex its master key from outside the data directory, either:",
  "  PREDEX_MASTER_KEY=<64 hex digits>            (e.g. from your secret manager), or",
  "  PREDEX_MASTER_KEY_FILE=/etc/predex/master.key (a file only predex's user can read).",
  "Make one with:  openssl rand -hex 32",
  "(`predex serve --demo` and `npm start` create one in the data directory instead: for trying predex only.)",
].join("\n");

export function resolveMasterKey(config: PlatformConfig, policy: MasterKeyPolicy): ResolvedMasterKey {
  if (config.masterKey !== undefined) return { key: config.masterKey, warnings: [] };
  if (config.masterKeyFile !== undefined) return readMasterKeyFile(config, policy);
  const besideDatabase = join(config.dataDir, masterKeyFileName);
  if (policy === "create-in-data-dir") {
    const loaded = loadOrCreateSecretFile(besideDatabase, () => randomToken(masterKeyBytes));
    return { key: Buffer.from(loaded.value, "base64url"), warnings: [] };
  }
  let existing: string;
  try {
    existing = readFileSync(besideDatabase, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    throw new ConfigError(
      `No master key: a production start does not create one beside the database (${besideDatabase}).\n${masterKeyHelp}`,
    );
  }
  return {
    key: Buffer.from(existing.trim(), "base64url"),
    warnings: [
      `the master key is read from ${besideDatabase}, beside the database: a copy of the data directory holds both. Move it out and set PREDEX_MASTER_KEY_FILE (or PREDEX_MASTER_KEY).`,
    ],
  };
}

function readMasterKeyFile(config: PlatformConfig, policy: MasterKeyPolicy): ResolvedMasterKey {
  const path = config.masterKeyFile!;
  if (policy === "external" && isInside(config.dataDir, path)) {
    throw new ConfigError(
      `PREDEX_MASTER_KEY_FILE (${path}) is inside the data directory (${config.dataDir}); keep the key elsewhere.\n${masterKeyHelp}`,
    );
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`PREDEX_MASTER_KEY_FILE (${path}) cannot be read: ${(error as Error).message}`);
  }
  const warnings: string[] = [];
  // Group or others may read the key: ssh refuses such keys; predex warns, since mounted secrets
  // (Docker, Kubernetes) are often 0444 inside a container only predex runs in.
  if ((statSync(path).mode & 0o077) !== 0) {
    warnings.push(`the master key file ${path} can be read by other users: chmod 600 it`);
  }
  // The demo writes its key as base64url; an operator writes hex or base64. All are accepted.
  const trimmed = text.trim();
  const key = /^[A-Za-z0-9_-]{43}$/.test(trimmed)
    ? Buffer.from(trimmed, "base64url")
    : parseMasterKey(trimmed, "PREDEX_MASTER_KEY_FILE");
  if (key.length !== masterKeyBytes) throw new ConfigError("PREDEX_MASTER_KEY_FILE must hold 32 bytes");
  return { key, warnings };
}

function isInside(directory: string, path: string): boolean {
  const fromDirectory = relative(resolve(directory), resolve(path));
  return fromDirectory === "" || (!fromDirectory.startsWith("..") && !fromDirectory.startsWith("/"));
}
