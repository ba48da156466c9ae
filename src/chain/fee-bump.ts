// What a withdrawal's transaction offers for gas (EIP-1559), and what a replacement at the same
// nonce offers when it has waited too long unmined. Pure functions of wei amounts (bigint).
//
// A node's pool takes a replacement only when it raises BOTH maxFeePerGas and maxPriorityFeePerGas
// by at least 10% over the transaction it replaces (geth's `txpool.pricebump`, Hardhat the same), so
// a replacement raises each by `bumpPercent` (≥ 10), rounded up, over the highest fees any
// transaction of the nonce has offered (whichever of them the pool holds now), and by at least one
// wei. It also offers no less than the node's fresh estimate: the fee market may have moved further
// than one bump. Nothing ever offers a maxFeePerGas above the operator's cap; when the cap leaves no
// room for the bump the pool requires, there is no replacement (the transaction waits, and the
// operator sees why).

import { parseTransaction, type TransactionSerializedEIP1559 } from "viem";

export interface GasFees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export interface WithdrawalFeePolicy {
  /** How long the newest transaction of a nonce may wait unmined before it is replaced. */
  readonly replaceAfterMs: number;
  /** Each replacement raises both fees by at least this much, in percent (10 or more). */
  readonly bumpPercent: number;
  /** The most maxFeePerGas any transaction offers, wei. */
  readonly maxFeePerGasCap: bigint;
}

/** A nonce is replaced at most this many times (a 10% bump reaches 100× the first fee in 49). */
export const transactionsPerNonceMax = 50;

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** The first offer: the node's estimate, within the cap (the priority fee never above the max fee). */
export function firstFees(estimate: GasFees, cap: bigint): GasFees {
  const maxFeePerGas = min(estimate.maxFeePerGas, cap);
  return { maxFeePerGas, maxPriorityFeePerGas: min(estimate.maxPriorityFeePerGas, maxFeePerGas) };
}

/** `value` raised by `percent`, rounded up, and by at least one wei. */
export function bumped(value: bigint, percent: number): bigint {
  const raised = (value * BigInt(100 + percent) + 99n) / 100n;
  return max(raised, value + 1n);
}

/**
 * The fees of a replacement over `highest` (each field's highest offer so far at this nonce), or
 * undefined when the cap leaves no room for the bump a pool requires.
 */
export function replacementFees(
  highest: GasFees,
  estimate: GasFees,
  policy: Pick<WithdrawalFeePolicy, "bumpPercent" | "maxFeePerGasCap">,
): GasFees | undefined {
  const floorMaxFee = bumped(highest.maxFeePerGas, policy.bumpPercent);
  const floorPriority = bumped(highest.maxPriorityFeePerGas, policy.bumpPercent);
  const priority = max(floorPriority, estimate.maxPriorityFeePerGas);
  const maxFeePerGas = min(max(max(floorMaxFee, estimate.maxFeePerGas), priority), policy.maxFeePerGasCap);
  const maxPriorityFeePerGas = min(priority, maxFeePerGas);
  if (maxFeePerGas < floorMaxFee || maxPriorityFeePerGas < floorPriority) return undefined;
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** The fees signed into an EIP-1559 transaction's bytes. */
export function feesOf(rawTx: string): GasFees {
  const parsed = parseTransaction(rawTx as TransactionSerializedEIP1559);
  return { maxFeePerGas: parsed.maxFeePerGas ?? 0n, maxPriorityFeePerGas: parsed.maxPriorityFeePerGas ?? 0n };
}

/** Each field's highest offer among transactions. */
export function highestFees(fees: readonly GasFees[]): GasFees {
  return fees.reduce(
    (highest, each) => ({
      maxFeePerGas: max(highest.maxFeePerGas, each.maxFeePerGas),
      maxPriorityFeePerGas: max(highest.maxPriorityFeePerGas, each.maxPriorityFeePerGas),
    }),
    { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
  );
}
