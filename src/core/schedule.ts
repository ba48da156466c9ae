// What time alone makes due, derived from the state and the time (never remembered), so the
// engine's scheduler neither skips nor repeats anything across a restart: resting GTD orders past
// their expiresAt, open markets past their endTime, unchallenged resolutions past their challenge
// window, and dead-man's switches past their deadline. Opening is the operator's act (DESIGN §3); an opened market whose startTime is
// still ahead simply refuses orders until then (book/place-order.ts).

import type { ExchangeCommand } from "./commands.js";
import { dueDeadMansSwitches } from "./dead-mans-switch.js";
import { isSettlementDue } from "./lifecycle/lifecycle.js";
import type { ExchangeState } from "./state.js";

export function dueScheduledCommands(
  state: ExchangeState,
  nowMs: number,
  commandsMax: number,
): ExchangeCommand[] {
  const commands: ExchangeCommand[] = [];
  for (const market of state.markets.values()) {
    if (commands.length >= commandsMax) return commands;
    if (market.status === "open" && market.endTimeMs !== null && market.endTimeMs <= nowMs) {
      commands.push({ type: "CloseMarket", marketId: market.marketId });
    }
    if (market.status === "resolving" && isSettlementDue(state, market.marketId, nowMs)) {
      commands.push({ type: "SettleMarket", marketId: market.marketId });
    }
  }
  for (const userId of dueDeadMansSwitches(state, nowMs)) {
    if (commands.length >= commandsMax) return commands;
    commands.push({ type: "TripDeadMansSwitch", userId });
  }
  if (commands.length < commandsMax && hasExpiredOrder(state, nowMs)) commands.push({ type: "ExpireOrders" });
  return commands;
}

function hasExpiredOrder(state: ExchangeState, nowMs: number): boolean {
  for (const order of state.ordersWithExpiry.values()) {
    if (order.expiresAtMs !== null && order.expiresAtMs <= nowMs) return true;
  }
  return false;
}
