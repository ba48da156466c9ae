// Withdrawals in the ledger (DESIGN §4): pending → approved → completed, or back to the user
// (cancelled by the user while pending, rejected by the operator while pending or approved).
// Amount and fee stay frozen from the request until the withdrawal completes or is released, so
// the balance a withdrawal needs can never be traded away meanwhile. Addresses, MFA and the chain
// transfer are the wallet's business; the core only moves the money.

import type {
  ApproveWithdrawalCommand,
  CancelWithdrawalCommand,
  CompleteWithdrawalCommand,
  RejectWithdrawalCommand,
  RequestWithdrawalCommand,
} from "../commands.js";
import type { CommandContext, Decision } from "../decider.js";
import { reject } from "../errors.js";
import type { ExchangeEvent } from "../events.js";
import { isId } from "../ids.js";
import type { ExchangeState } from "../state.js";
import { type Withdrawal, withdrawalAddressLengthMax } from "./withdrawal.js";

function refuse(code: Parameters<typeof reject>[0]): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject(code) };
}

function invalid(message: string): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

export function decideRequestWithdrawal(
  state: ExchangeState,
  command: RequestWithdrawalCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  if (!isId(command.userId)) return invalid("userId must be a positive integer");
  if (typeof command.amount !== "bigint" || command.amount <= 0n) return invalid("amount must be positive");
  if (typeof command.fee !== "bigint" || command.fee < 0n) return invalid("fee must not be negative");
  if (
    typeof command.address !== "string" ||
    command.address.length === 0 ||
    command.address.length > withdrawalAddressLengthMax
  ) {
    return invalid("address is required");
  }
  const available = state.accounts.get(command.userId)?.available ?? 0n;
  if (available < command.amount + command.fee) return refuse("INSUFFICIENT_BALANCE");
  return {
    ok: true,
    events: [
      {
        type: "WithdrawalRequested",
        withdrawalId: state.counters.nextWithdrawalId,
        userId: command.userId,
        amount: command.amount,
        fee: command.fee,
        address: command.address,
        atMs: context.nowMs,
      },
    ],
  };
}

/** The withdrawal a command names, or why it cannot be acted on. */
function find(state: ExchangeState, withdrawalId: number): Withdrawal | "NOT_FOUND" | "GONE" {
  if (!isId(withdrawalId)) return "NOT_FOUND";
  const withdrawal = state.withdrawals.get(withdrawalId);
  if (withdrawal !== undefined) return withdrawal;
  // An id that was issued but is no longer held has completed or been released.
  return withdrawalId < state.counters.nextWithdrawalId ? "GONE" : "NOT_FOUND";
}

export function decideCancelWithdrawal(
  state: ExchangeState,
  command: CancelWithdrawalCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const withdrawal = find(state, command.withdrawalId);
  if (withdrawal === "NOT_FOUND") return refuse("WITHDRAWAL_NOT_FOUND");
  if (withdrawal === "GONE") return refuse("WITHDRAWAL_NOT_PENDING");
  // Another user's withdrawal is "not found": its existence is none of the caller's business.
  if (withdrawal.userId !== command.userId) return refuse("WITHDRAWAL_NOT_FOUND");
  if (withdrawal.status !== "PENDING") return refuse("WITHDRAWAL_NOT_PENDING");
  return { ok: true, events: [released(withdrawal, "CANCELLED", context.nowMs)] };
}

export function decideApproveWithdrawal(
  state: ExchangeState,
  command: ApproveWithdrawalCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const withdrawal = find(state, command.withdrawalId);
  if (withdrawal === "NOT_FOUND") return refuse("WITHDRAWAL_NOT_FOUND");
  if (withdrawal === "GONE" || withdrawal.status !== "PENDING") return refuse("WITHDRAWAL_NOT_PENDING");
  return {
    ok: true,
    events: [
      {
        type: "WithdrawalApproved",
        withdrawalId: withdrawal.withdrawalId,
        userId: withdrawal.userId,
        atMs: context.nowMs,
      },
    ],
  };
}

export function decideRejectWithdrawal(
  state: ExchangeState,
  command: RejectWithdrawalCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const withdrawal = find(state, command.withdrawalId);
  if (withdrawal === "NOT_FOUND") return refuse("WITHDRAWAL_NOT_FOUND");
  if (withdrawal === "GONE") return refuse("WITHDRAWAL_NOT_PENDING");
  return { ok: true, events: [released(withdrawal, "REJECTED", context.nowMs)] };
}

export function decideCompleteWithdrawal(
  state: ExchangeState,
  command: CompleteWithdrawalCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const withdrawal = find(state, command.withdrawalId);
  if (withdrawal === "NOT_FOUND") return refuse("WITHDRAWAL_NOT_FOUND");
  if (withdrawal === "GONE" || withdrawal.status !== "APPROVED") return refuse("WITHDRAWAL_NOT_APPROVED");
  return {
    ok: true,
    events: [
      {
        type: "WithdrawalCompleted",
        withdrawalId: withdrawal.withdrawalId,
        userId: withdrawal.userId,
        amount: withdrawal.amount,
        fee: withdrawal.fee,
        atMs: context.nowMs,
      },
    ],
  };
}

function released(withdrawal: Withdrawal, reason: "CANCELLED" | "REJECTED", nowMs: number): ExchangeEvent {
  return {
    type: "WithdrawalReleased",
    withdrawalId: withdrawal.withdrawalId,
    userId: withdrawal.userId,
    amount: withdrawal.amount,
    fee: withdrawal.fee,
    reason,
    atMs: nowMs,
  };
}
