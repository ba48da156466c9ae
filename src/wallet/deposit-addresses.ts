// Per-user deposit addresses (DESIGN §4, §8): network ERC20, `0x` and 40 hex digits, the same one
// every time. The address is derived, not drawn: HMAC-SHA256 under a key derived from the master key
// (HKDF, its own label), over the user id, cut to 20 bytes like an Ethereum address. So it is stable
// across restarts and replicas without coordination, and unguessable without the master key. A real
// deployment would derive it from the custody wallet's extended public key (BIP-32) instead, so that
// the funds can be swept; the chain watcher then only needs the address → user map kept here.

import { createHmac, hkdfSync } from "node:crypto";
import type { DepositAddressStore } from "../store/deposit-addresses.js";

export const depositNetwork = "ERC20";
/** `0x` and 40 hex digits, either case (a checksummed address is mixed case). */
export const evmAddressPattern = /^0x[0-9a-fA-F]{40}$/;

const addressKeyInfo = "predex/wallet/deposit-address/v1";
const addressKeyBytes = 32;
const addressBytes = 20;

export type { DepositAddressStore };

export class DepositAddresses {
  readonly #key: Buffer;
  readonly #store: DepositAddressStore;

  constructor(masterKey: Buffer, store: DepositAddressStore) {
    this.#key = Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), addressKeyInfo, addressKeyBytes));
    this.#store = store;
  }

  /** The user's address (lower-case hex), remembered on first issue. */
  addressOf(userId: number, nowMs: number): string {
    const address = deriveDepositAddress(this.#key, userId);
    // A read first: a write (and its fsync) only the first time, not on every GET.
    if (this.#store.userIdOf(address) !== userId) this.#store.remember(userId, address, nowMs);
    return address;
  }

  /** The owner of an address this platform has issued; undefined for any other address. */
  userIdOf(address: string): number | undefined {
    if (!evmAddressPattern.test(address)) return undefined;
    return this.#store.userIdOf(address.toLowerCase());
  }
}

export function deriveDepositAddress(key: Buffer, userId: number): string {
  const digest = createHmac("sha256", key).update(`deposit-address:${userId}`, "utf8").digest();
  return `0x${digest.subarray(0, addressBytes).toString("hex")}`;
}
