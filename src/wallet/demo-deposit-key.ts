// The deposit key of a platform started without PREDEX_DEPOSIT_XPUB (the demo, `npm start`, tests):
// a BIP-39 mnemonic printed at start labelled "demo, not for real funds", so no address is ever
// shown that no key controls; a real deployment sets PREDEX_DEPOSIT_XPUB and keeps its mnemonic away
// from the platform.
// - Embedded (SQLite, one process): made on first start and kept in the data dir; whoever has the
//   data dir has the keys of every demo deposit address.
// - On PostgreSQL (several nodes): derived from the shared PREDEX_MASTER_KEY, so every node derives
//   the same addresses (a mnemonic per data dir gave one user a different address on each node,
//   issue #27); whoever has the master key has the demo keys.

import { hkdfSync } from "node:crypto";
import { join } from "node:path";
import { HDKey } from "@scure/bip32";
import { entropyToMnemonic, generateMnemonic, mnemonicToSeedSync, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { loadOrCreateSecretFile } from "../identity/secret-files.js";

export const demoMnemonicFileName = "deposit-demo-mnemonic";
/** BIP-44's account 0 of Ethereum (coin type 60): the level PREDEX_DEPOSIT_XPUB is taken at. */
export const depositAccountPath = "m/44'/60'/0'";

/** HKDF's info for the demo mnemonic of a cluster: a new label would give every user a new address. */
const masterKeyDemoInfo = "predex/wallet/demo-deposit-mnemonic/v1";

export interface DepositKeySource {
  /** The account-level key addresses derive from. */
  readonly accountKey: HDKey;
  /** Set for the demo: the mnemonic (printed at start) and the file that holds it. */
  readonly demo?: {
    readonly mnemonic: string;
    /** The file in the data dir; undefined when derived from the master key (on PostgreSQL). */
    readonly path: string | undefined;
    readonly created: boolean;
  };
}

/** The embedded platform's key: the xpub, else the demo mnemonic of the data dir (made if absent). */
export function depositKeySource(xpub: string | undefined, dataDir: string): DepositKeySource {
  if (xpub !== undefined) return { accountKey: HDKey.fromExtendedKey(xpub) };
  const path = join(dataDir, demoMnemonicFileName);
  const loaded = loadOrCreateSecretFile(path, () => generateMnemonic(wordlist, 128));
  if (!validateMnemonic(loaded.value, wordlist)) throw new Error(`${path} does not hold a BIP-39 mnemonic`);
  return {
    accountKey: accountKeyOf(loaded.value),
    demo: { mnemonic: loaded.value, path, created: loaded.created },
  };
}

/**
 * A node's key on PostgreSQL: the xpub, else the demo mnemonic derived from the master key (the same
 * on every node of the deployment, which shares the master key; asked for only without an xpub).
 * Nothing is written to the data dir.
 */
export function clusterDepositKeySource(xpub: string | undefined, masterKey: () => Buffer): DepositKeySource {
  if (xpub !== undefined) return { accountKey: HDKey.fromExtendedKey(xpub) };
  const mnemonic = masterKeyDemoMnemonic(masterKey());
  return { accountKey: accountKeyOf(mnemonic), demo: { mnemonic, path: undefined, created: false } };
}

/** 128 bits of HKDF-SHA256 output under the master key, as a 12-word mnemonic. */
export function masterKeyDemoMnemonic(masterKey: Buffer): string {
  const entropy = new Uint8Array(hkdfSync("sha256", masterKey, Buffer.alloc(0), masterKeyDemoInfo, 16));
  return entropyToMnemonic(entropy, wordlist);
}

/** The account-level key of m/44'/60'/0' of a mnemonic, public part only. */
export function accountKeyOf(mnemonic: string): HDKey {
  const account = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(depositAccountPath);
  return HDKey.fromExtendedKey(account.publicExtendedKey);
}
