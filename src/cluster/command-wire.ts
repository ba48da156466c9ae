// The forwarding protocol between API nodes and the engine leader (docs/decisions.md, "Topology"):
// HTTP/1.1 with keep-alive, one command per POST (or one group of commands submitted together, to
// their own path), bodies in the journal codec (bigint-safe JSON, the same text the journal stores).
// The answer comes after the durable commit, as the engine's own submit and submitMany answer.

import type { Rejection } from "../core/errors.js";

export const commandPath = "/v1/commands";
/** Where a group of commands goes, to be queued together (Engine.submitMany). */
export const commandGroupPath = "/v1/command-groups";

/** POST body: the command and an id the API node keeps across its retries of that one command. */
export interface ForwardedCommand<Command> {
  readonly id: string;
  readonly command: Command;
}

/**
 * Why the leader did not run a command:
 * - "overloaded": its queue is full; nothing was done (the surface answers try-again-later).
 * - "not-leader", "stopped": it is not taking commands; nothing was done (look up the leader again).
 * - "fatal": the engine stopped while the command was queued or in flight; it may or may not be in
 *   the journal (the API node settles that from the journal once another leader leads).
 */
export type CommandRefusal = "overloaded" | "not-leader" | "stopped" | "fatal";

export type CommandAnswer<Event> =
  | {
      readonly ok: true;
      readonly sequence: bigint;
      readonly nowMs: number;
      readonly events: readonly Event[];
    }
  | { readonly ok: false; readonly rejection: Rejection }
  | { readonly ok: false; readonly refused: CommandRefusal; readonly message: string };

/** POST body of a group: its commands, in order, and an id the API node keeps across its retries. */
export interface ForwardedGroup<Command> {
  readonly id: string;
  readonly commands: readonly Command[];
}

/**
 * The forward id each command of a group is journaled under (forwarded-commands.ts), so that after a
 * takeover each one is found, or known not to be committed, on its own.
 */
export function groupItemForwardId(groupId: string, index: number): string {
  return `${groupId}/${index}`;
}

/** The answer to a group: every command's result in order, or a refusal of the whole group. */
export type CommandGroupAnswer<Event> =
  | {
      readonly ok: true;
      readonly results: readonly (
        | {
            readonly ok: true;
            readonly sequence: bigint;
            readonly nowMs: number;
            readonly events: readonly Event[];
          }
        | { readonly ok: false; readonly rejection: Rejection }
      )[];
    }
  | { readonly ok: false; readonly refused: CommandRefusal; readonly message: string };
