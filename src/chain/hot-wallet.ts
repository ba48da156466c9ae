// The hot wallet that pays withdrawals: its 0x-hex private key is read once from the file named by
// PREDEX_WITHDRAWAL_KEY_FILE and kept only inside a viem account in memory. It is never logged,
// never written anywhere, and never part of an error message (a malformed file is reported by
// its path alone). A file others may read is refused, as ssh refuses such a private key.

import { readFileSync, statSync } from "node:fs";
import type { LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export class HotWalletKeyError extends Error {
  override name = "HotWalletKeyError";
}

export function loadHotWallet(path: string): LocalAccount {
  let mode: number;
  let text: string;
  try {
    mode = statSync(path).mode;
    text = readFileSync(path, "utf8").trim();
  } catch (error) {
    throw new HotWalletKeyError(
      `PREDEX_WITHDRAWAL_KEY_FILE ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  if ((mode & 0o077) !== 0) {
    throw new HotWalletKeyError(
      `PREDEX_WITHDRAWAL_KEY_FILE ${path} may be read by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(text)) {
    throw new HotWalletKeyError(
      `PREDEX_WITHDRAWAL_KEY_FILE ${path} must hold one 0x-hex private key (64 hex digits)`,
    );
  }
  try {
    return privateKeyToAccount(text as `0x${string}`);
  } catch {
    throw new HotWalletKeyError(
      `PREDEX_WITHDRAWAL_KEY_FILE ${path} does not hold a valid secp256k1 private key`,
    );
  }
}
