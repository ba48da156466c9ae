// What an all-in-one node's replica folds of its own engine's commits (forwarding-engine.ts): the
// replica's state must share nothing mutable with the engine's, so a batch used to be handed over
// as a structuredClone, about 10 µs an order of the API process's CPU in bench:orders. An event
// whose every field is a primitive (string, number, bigint, boolean, null) cannot be shared
// harmfully: evolve can copy only values out of it, and a decided event is never changed
// (engine.ts). Such events are nearly all of the journal (orders, trades, cancellations, expiries,
// deposits), so an entry of only those is handed over as it is, and any other entry (a market
// created with its outcomes and details, a resolution with its winners, a pool's balances) is
// cloned whole, as before.

import type { JournalEntry } from "../engine/store.js";

/** Whether every own field of the event is a primitive (nothing evolve could keep a reference to). */
export function isFlatEvent(event: unknown): boolean {
  if (typeof event !== "object" || event === null) return true;
  const fields = event as Record<string, unknown>;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === "object" && value !== null) return false;
  }
  return true;
}

/** The batch as the replica may keep it: flat entries shared, the others deep copies. */
export function handOverCopies<Command, Event>(
  entries: readonly JournalEntry<Command, Event>[],
): readonly JournalEntry<Command, Event>[] {
  return entries.every((entry) => entry.events.every(isFlatEvent))
    ? entries
    : entries.map((entry) => (entry.events.every(isFlatEvent) ? entry : structuredClone(entry)));
}
