// The port of the issued deposit addresses (src/wallet/deposit-addresses.ts derives them; the SQLite
// adapter is src/store/sqlite/deposit-addresses.ts).

/** Where issued addresses are remembered, so the chain watcher can credit by address. */
export interface DepositAddressStore {
  /** Records the pair; the same pair again is a no-op. */
  remember(userId: number, address: string, nowMs: number): void;
  /** The user an issued address belongs to; `address` is lower case. */
  userIdOf(address: string): number | undefined;
}
