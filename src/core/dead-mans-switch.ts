// The dead-man's switch (heartbeat, DESIGN §9). A heartbeat arms the user's switch to go off at its
// commit time plus a timeout, or disarms it; the deadline is core state, journaled with the
// heartbeat, so a restart or a leader takeover keeps it. When the deadline passes, the scheduler
// (schedule.ts, which derives what is due from the state and the time) sends TripDeadMansSwitch,
// and that one command cancels every resting order of the user. A heartbeat that comes after the
// deadline but before the scheduler's command trips the switch first: the deadline, not the
// scheduler's timing, decides that the orders are cancelled.

import type { HeartbeatCommand, TripDeadMansSwitchCommand } from "./commands.js";
import type { CommandContext, Decision } from "./decider.js";
import { reject } from "./errors.js";
import type { DeadMansSwitchArmedEvent, ExchangeEvent } from "./events.js";
import { isId } from "./ids.js";
import { deadMansSwitchTimeoutMsMax, deadMansSwitchTimeoutMsMin } from "./limits.js";
import { cancelEventsOfUser } from "./mass-cancel.js";
import type { ExchangeState } from "./state.js";

function invalid(message: string): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

/** The switch going off: every resting order of the user cancelled, then the switch disarmed. */
function tripEvents(
  state: ExchangeState,
  userId: number,
  expiresAtMs: number,
  nowMs: number,
): ExchangeEvent[] {
  const cancels = cancelEventsOfUser(
    state,
    userId,
    { marketId: null, outcomeId: null },
    "DEAD_MANS_SWITCH",
    nowMs,
  );
  return [
    ...cancels,
    { type: "DeadMansSwitchTripped", userId, expiresAtMs, cancelledOrders: cancels.length, atMs: nowMs },
  ];
}

export function decideHeartbeat(
  state: ExchangeState,
  command: HeartbeatCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const { userId, timeoutMs } = command;
  if (!isId(userId)) return invalid("userId must be a positive integer");
  if (
    !Number.isSafeInteger(timeoutMs) ||
    (timeoutMs !== 0 && (timeoutMs < deadMansSwitchTimeoutMsMin || timeoutMs > deadMansSwitchTimeoutMsMax))
  ) {
    return invalid(
      `timeoutSeconds must be 0 (disarm) or ${deadMansSwitchTimeoutMsMin / 1000} to ${deadMansSwitchTimeoutMsMax / 1000}`,
    );
  }
  const nowMs = context.nowMs;
  const events: ExchangeEvent[] = [];
  const armedUntil = state.deadMansSwitches.get(userId);
  const overdue = armedUntil !== undefined && armedUntil <= nowMs;
  // Too late to keep the orders: the switch goes off first, then the heartbeat takes effect.
  if (overdue) events.push(...tripEvents(state, userId, armedUntil, nowMs));
  if (timeoutMs > 0) {
    const armed: DeadMansSwitchArmedEvent = {
      type: "DeadMansSwitchArmed",
      userId,
      timeoutMs,
      expiresAtMs: nowMs + timeoutMs,
      atMs: nowMs,
    };
    events.push(armed);
  } else if (armedUntil !== undefined && !overdue) {
    events.push({ type: "DeadMansSwitchDisarmed", userId, atMs: nowMs });
  }
  return { ok: true, events };
}

export function decideTripDeadMansSwitch(
  state: ExchangeState,
  command: TripDeadMansSwitchCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const armedUntil = state.deadMansSwitches.get(command.userId);
  // Re-armed, disarmed or already gone off since the scheduler looked: nothing to do.
  if (armedUntil === undefined || armedUntil > context.nowMs)
    return { ok: false, rejection: reject("DEAD_MANS_SWITCH_NOT_DUE") };
  return { ok: true, events: tripEvents(state, command.userId, armedUntil, context.nowMs) };
}

/** The users whose switch is due at `nowMs`, lowest id first. */
export function dueDeadMansSwitches(state: ExchangeState, nowMs: number): number[] {
  const due: number[] = [];
  for (const [userId, expiresAtMs] of state.deadMansSwitches) if (expiresAtMs <= nowMs) due.push(userId);
  return due.sort((a, b) => a - b);
}
