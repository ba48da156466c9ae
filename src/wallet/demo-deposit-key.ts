// The deposit key of a platform started without PREDEX_DEPOSIT_XPUB (the demo, `npm start`, tests):
// a BIP-39 mnemonic made on first start and kept in the data dir, printed at start labelled
// "demo, not for real funds". Whoever has the data dir has the keys of every demo deposit address,
// so no address is ever shown that no key controls; a real deployment sets PREDEX_DEPOSIT_XPUB and
// keeps the mnemonic away from the platform.

import { join } from "node:path";
import { HDKey } from "@scure/bip32";
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { loadOrCreateSecretFile } from "../identity/secret-files.js";

export const demoMnemonicFileName = "deposit-demo-mnemonic";
/** BIP-44's account 0 of Ethereum (coin type 60): the level PREDEX_DEPOSIT_XPUB is taken at. */
export const depositAccountPath = "m/44'/60'/0'";

export interface DepositKeySource {
  /** The account-level key addresses derive from. */
  readonly accountKey: HDKey;
  /** Set for the demo: the mnemonic (printed at start) and the file that holds it. */
  readonly demo?: { readonly mnemonic: string; readonly path: string; readonly created: boolean };
}

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

/** The account-level key of m/44'/60'/0' of a mnemonic, public part only. */
export function accountKeyOf(mnemonic: string): HDKey {
  const account = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(depositAccountPath);
  return HDKey.fromExtendedKey(account.publicExtendedKey);
}
