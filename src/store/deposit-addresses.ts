// The port of the issued deposit addresses (src/wallet/deposit-addresses.ts derives them; the SQLite
// adapter is src/store/sqlite/deposit-addresses.ts).

/** An issued address and its owner. */
export interface IssuedDepositAddress {
  /** Lower case. */
  readonly address: string;
  readonly userId: number;
}

/** Where issued addresses are remembered, so the chain watcher can credit by address. */
export interface DepositAddressStore {
  /** Records the pair under the key it was derived from; the same pair again is a no-op. */
  remember(userId: number, address: string, keyId: string, nowMs: number): Promise<void>;
  /** The address issued to the user under this key, lower case. */
  addressOf(userId: number, keyId: string): Promise<string | undefined>;
  /** The user an issued address belongs to (under any key, old ones included); `address` is lower case. */
  userIdOf(address: string): Promise<number | undefined>;
  /** Every address issued under this key. */
  issuedUnder(keyId: string): Promise<IssuedDepositAddress[]>;
  /**
   * How many addresses are issued under this key. Addresses are only ever added, so a count above
   * what a node holds means another node issued some (the chain watcher then reads them all again).
   */
  countIssuedUnder(keyId: string): Promise<number>;
}
