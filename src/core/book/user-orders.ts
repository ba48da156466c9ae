// Each user's resting orders as an intrusive list in id order (Account.firstOpenOrder through
// Order.userNext), kept by evolve as orders start and stop resting. A mass cancel or the dead-man's
// switch visits exactly the user's own orders (at most openOrdersPerUserMax) instead of every order
// on the exchange, and keeping the list costs a few pointer writes and no allocation per order.
// Orders join at the end; ids are issued in increasing order, so the list stays in id order.

import type { Account } from "../wallet/ledger.js";
import type { Order } from "./orders.js";

export function linkUserOrder(account: Account, order: Order): void {
  const last = account.lastOpenOrder;
  order.userPrevious = last;
  order.userNext = null;
  if (last === null) account.firstOpenOrder = order;
  else last.userNext = order;
  account.lastOpenOrder = order;
}

export function unlinkUserOrder(account: Account, order: Order): void {
  const { userPrevious, userNext } = order;
  if (userPrevious === null) account.firstOpenOrder = userNext;
  else userPrevious.userNext = userNext;
  if (userNext === null) account.lastOpenOrder = userPrevious;
  else userNext.userPrevious = userPrevious;
  order.userPrevious = null;
  order.userNext = null;
}

/** The user's resting orders, oldest first. */
export function* userOrders(account: Account | undefined): Generator<Order> {
  for (let order = account?.firstOpenOrder ?? null; order !== null; order = order.userNext) yield order;
}
