// The forwarding protocol between API nodes and the engine leader (docs/decisions.md, "Topology"):
// HTTP/1.1 with keep-alive, one command per POST, bodies in the journal codec (bigint-safe JSON, the
// same text the journal stores). The answer comes after the durable commit, as the engine's own
// submit answers.

import type { Rejection } from "../core/errors.js";

export const commandPath = "/v1/commands";

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
