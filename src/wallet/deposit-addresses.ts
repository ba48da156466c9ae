// Per-user deposit addresses (DESIGN §4, §8): network ERC20, `0x` and 40 hex digits, the same one
// every time. User N's address is the child 0/N (BIP-32, BIP-44's external chain) of the operator's
// account-level extended public key of m/44'/60'/0' (PREDEX_DEPOSIT_XPUB), so the operator's own
// wallet holds the key of every address and can find and sweep them all; the platform holds public
// keys only. Without an xpub the demo derives from a demo mnemonic (demo-deposit-key.ts: in the data
// dir, or on PostgreSQL derived from the master key so every node agrees), printed at start as such. Issued addresses are remembered, so the chain watcher knows which
// transfers are deposits, and an address always maps back to its user.
//
// Addresses issued before this (HMAC outputs that no key controls) stay in their old table as a
// record, are never shown again, and still name their user for the operator's manual credit
// (docs/decisions.md, "Deposit addresses from the operator's xpub").

import { secp256k1 } from "@noble/curves/secp256k1.js";
import { HDKey } from "@scure/bip32";
// viem/accounts, not viem's index: the platform's start stays light when no chain is configured.
import { publicKeyToAddress } from "viem/accounts";
import type { DepositAddressStore, IssuedDepositAddress } from "../store/deposit-addresses.js";

export const depositNetwork = "ERC20";
/** `0x` and 40 hex digits, either case (a checksummed address is mixed case). */
export const evmAddressPattern = /^0x[0-9a-fA-F]{40}$/;
/** BIP-32 non-hardened children stop at 2^31 − 1: the largest user id that has an address. */
export const depositUserIdMax = 0x7fff_ffff;

export type { DepositAddressStore, IssuedDepositAddress };

export class DepositAddresses {
  readonly #accountKey: HDKey;
  readonly #externalChain: HDKey;
  readonly #store: DepositAddressStore;
  /** Identifies the account key: the hash160 of its public key, hex. */
  readonly keyId: string;
  /**
   * Read from the store, kept up to date by this object's own issues, and read again when the
   * store holds more (another node issued some: several API nodes share one database).
   */
  #watched: Promise<IssuedDepositAddress[]> | undefined;
  readonly #watchedAddresses = new Set<string>();
  readonly #issuedListeners = new Set<(issued: IssuedDepositAddress) => void>();

  /** `accountKey`: the account-level key of m/44'/60'/0'; only its public part is kept. */
  constructor(accountKey: HDKey, store: DepositAddressStore) {
    this.#accountKey = HDKey.fromExtendedKey(accountKey.publicExtendedKey);
    this.#externalChain = this.#accountKey.deriveChild(0);
    this.#store = store;
    this.keyId = DepositAddresses.keyIdOf(this.#accountKey);
  }

  /** The key id of an account key: the hash160 of its public key, hex. */
  static keyIdOf(accountKey: HDKey): string {
    return Buffer.from(accountKey.identifier!).toString("hex");
  }

  /** The account-level extended public key the addresses derive from. */
  get accountXpub(): string {
    return this.#accountKey.publicExtendedKey;
  }

  /** The user's address (EIP-55 checksummed), remembered on first issue. */
  async addressOf(userId: number, nowMs: number): Promise<string> {
    const address = this.derive(userId);
    if ((await this.#store.addressOf(userId, this.keyId)) !== undefined) return address;
    const lower = address.toLowerCase();
    await this.#store.remember(userId, lower, this.keyId, nowMs);
    // A list being read may or may not hold the new row: add it once it is read, unless it is there.
    const watched = await this.#watched?.catch(() => undefined);
    if (watched !== undefined) this.#addWatched(watched, { address: lower, userId });
    for (const listener of this.#issuedListeners) listener({ address: lower, userId });
    return address;
  }

  /** The address of child 0/userId, checksummed; derived, not remembered. */
  derive(userId: number): string {
    if (!Number.isInteger(userId) || userId < 0 || userId > depositUserIdMax) {
      throw new Error(`user id ${userId} has no deposit address (BIP-32 child index out of range)`);
    }
    const child = this.#externalChain.deriveChild(userId);
    const uncompressed = secp256k1.Point.fromBytes(child.publicKey!).toBytes(false);
    // Checksummed (EIP-55) by viem.
    return publicKeyToAddress(`0x${Buffer.from(uncompressed).toString("hex")}`);
  }

  /** The owner of an address this platform has issued; undefined for any other address. */
  async userIdOf(address: string): Promise<number | undefined> {
    if (!evmAddressPattern.test(address)) return undefined;
    return this.#store.userIdOf(address.toLowerCase());
  }

  /**
   * The addresses the chain watcher watches: every one issued under the current key, including
   * those other nodes issued up to this call. The watcher reads the chain's head before it calls
   * this, so a deposit in any block it then scans went to an address issued before the call.
   */
  async watched(): Promise<readonly IssuedDepositAddress[]> {
    const held = this.#watched;
    const list = await held?.catch(() => undefined);
    if (list !== undefined && (await this.#store.countIssuedUnder(this.keyId)) > list.length) {
      // Unless a concurrent call has already started the new read.
      if (this.#watched === held) this.#watched = undefined;
    }
    if (this.#watched === undefined) {
      const loading = this.#store.issuedUnder(this.keyId).then((issued) => {
        for (const one of issued) this.#watchedAddresses.add(one.address);
        return issued;
      });
      // A failed read is read again next time, not remembered.
      loading.catch(() => {
        if (this.#watched === loading) this.#watched = undefined;
      });
      this.#watched = loading;
    }
    return this.#watched;
  }

  #addWatched(watched: IssuedDepositAddress[], issued: IssuedDepositAddress): void {
    if (this.#watchedAddresses.has(issued.address)) return;
    this.#watchedAddresses.add(issued.address);
    watched.push(issued);
  }

  /** Calls `listener` for each address issued from now on; returns the unsubscribe. */
  onIssued(listener: (issued: IssuedDepositAddress) => void): () => void {
    this.#issuedListeners.add(listener);
    return () => this.#issuedListeners.delete(listener);
  }
}
