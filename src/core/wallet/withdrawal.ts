// A withdrawal as the core keeps it while it holds frozen funds (withdrawals.ts decides its steps).

export type WithdrawalStatus = "PENDING" | "APPROVED";

/** A withdrawal that still holds frozen funds. Completed, cancelled and rejected ones leave the core. */
export interface Withdrawal {
  readonly withdrawalId: number;
  readonly userId: number;
  readonly amount: bigint;
  readonly fee: bigint;
  readonly address: string;
  status: WithdrawalStatus;
  readonly requestedAtMs: number;
}

export const withdrawalAddressLengthMax = 128;
