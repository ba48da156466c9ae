// The rules of a chain deposit (DESIGN §4), as named constants. A transfer below the minimum is
// recorded and shown to the user (BELOW_MINIMUM) but not credited automatically: dust sent to
// deposit addresses (address-poisoning spam, fee probes) would otherwise flood the ledger with
// entries, and sweeping it costs the operator more gas than it is worth. The operator can still
// credit one by hand (POST /admin/deposits). Exchanges publish such a minimum; 1 USDT is ours.

import { ATOMS_PER_UNIT } from "../core/money.js";

/** Smallest deposit credited by the watcher, USDT atoms: 1 USDT. */
export const depositAmountAtomsMin = 1n * ATOMS_PER_UNIT;
/** Blocks per eth_getLogs call: public nodes refuse wider ranges (often 2,000 to 10,000). */
export const getLogsBlocksMax = 2_000n;
/** Deposit addresses per eth_getLogs call (one topic OR-list): providers cap the list's length. */
export const getLogsAddressesMax = 1_000;

/** The deposit's key in the engine (its idempotency key): the transaction and the log in it. */
export function depositKey(txHash: string, logIndex: number): string {
  return `${txHash.toLowerCase()}:${logIndex}`;
}

/** The transaction and log index of a key made by depositKey; undefined for a hand-entered txHash. */
export function parseDepositKey(key: string): { txHash: string; logIndex: number } | undefined {
  const match = /^(0x[0-9a-f]{64}):(\d{1,9})$/.exec(key);
  return match === null ? undefined : { txHash: match[1]!, logIndex: Number(match[2]) };
}
