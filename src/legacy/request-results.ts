// What a request's result says: the `notifyContent` JSON text kept with the request, and the
// transaction result record of spec 001 that the result endpoint returns and webhooks carry.

import type { OrderSide, OrderStatus, OrderType } from "../core/book/orders.js";
import { type Atoms, atomsToNumber, formatAtoms } from "../core/money.js";
import type { LegacyOrderInstruction, LegacyRequestRecord, LegacyRequestStatus } from "../store/legacy.js";

/** The fields of an order the result shows; the core's OrderPlaced event and the orders read model both have them. */
export interface ExecutedOrder {
  readonly orderId: number;
  readonly side: OrderSide;
  readonly orderType: OrderType;
  readonly status: OrderStatus;
  readonly limitPrice: Atoms | null;
  readonly shares: Atoms | null;
  readonly amount: Atoms | null;
  readonly filledShares: Atoms;
  readonly filledAmount: Atoms;
  readonly feePaid: Atoms;
  readonly createdAtMs: number;
}

/** The transaction result record (spec 001 "Transaction result record"). */
export interface TransactionResultRecord {
  id: string;
  merchantId: number;
  userId: number;
  status: LegacyRequestStatus;
  errorMsg: string | null;
  notifyContent: string;
  notifyStatus: number;
  notifyRetryTimes: number;
  notifyUpdateTime: string | null;
  createTime: string;
  updateTime: string;
}

function requestPart(instruction: LegacyOrderInstruction) {
  return {
    marketId: instruction.marketId,
    outcomeId: instruction.outcomeId,
    optionId: instruction.optionId,
    direction: instruction.direction,
    orderType: instruction.orderType,
    price: decimalNumber(instruction.price),
    amount: decimalNumber(instruction.amount),
    shares: decimalNumber(instruction.shares),
  };
}

export function pendingContent(requestId: string, instruction: LegacyOrderInstruction): string {
  return JSON.stringify({ fgRequestId: requestId, status: "PENDING", request: requestPart(instruction) });
}

export function successContent(
  requestId: string,
  instruction: LegacyOrderInstruction,
  order: ExecutedOrder,
): string {
  return JSON.stringify({
    fgRequestId: requestId,
    status: "SUCCESS",
    request: requestPart(instruction),
    order: {
      orderId: order.orderId,
      status: order.status,
      direction: order.side,
      orderType: order.orderType,
      price: order.limitPrice === null ? null : atomsToNumber(order.limitPrice),
      shares: order.shares === null ? null : atomsToNumber(order.shares),
      amount: order.amount === null ? null : atomsToNumber(order.amount),
      filledShares: atomsToNumber(order.filledShares),
      filledAmount: atomsToNumber(order.filledAmount),
      avgPrice:
        order.filledShares === 0n ? null : Number(averagePrice(order.filledAmount, order.filledShares)),
      fee: atomsToNumber(order.feePaid),
      createTime: new Date(order.createdAtMs).toISOString(),
    },
  });
}

export function failureContent(
  requestId: string,
  instruction: LegacyOrderInstruction,
  errorCode: number,
  errorMsg: string,
): string {
  return JSON.stringify({
    fgRequestId: requestId,
    status: "FAILED",
    request: requestPart(instruction),
    errorCode,
    errorMsg,
  });
}

export function transactionResult(record: LegacyRequestRecord): TransactionResultRecord {
  return {
    id: record.requestId,
    merchantId: record.merchantId,
    userId: record.userId,
    status: record.status,
    errorMsg: record.errorMsg,
    notifyContent: record.notifyContent,
    notifyStatus: record.notifyStatus,
    notifyRetryTimes: record.notifyRetryTimes,
    notifyUpdateTime: record.notifyUpdateTimeMs === null ? null : isoMs(record.notifyUpdateTimeMs),
    createTime: isoMs(record.createTimeMs),
    updateTime: isoMs(record.updateTimeMs),
  };
}

function isoMs(ms: number): string {
  return new Date(ms).toISOString();
}

function decimalNumber(text: string | null): number | null {
  return text === null ? null : Number(text);
}

/** filledAmount / filledShares, rounded down to 8 decimals, as decimal text. */
function averagePrice(filledAmount: Atoms, filledShares: Atoms): string {
  return formatAtoms((filledAmount * 100_000_000n) / filledShares);
}
