// The shape of the domain core, after Emmett's Decider: commands in, events out, state folded
// from events. The engine (src/engine) is written against this type only, so it can sequence,
// journal and replay any core without knowing its commands.

import type { Rejection } from "./errors.js";

/** What the engine hands every command: the commit time and the ids it may use. No clock reads in the core. */
export interface CommandContext {
  /** Milliseconds since the Unix epoch, assigned by the sequencer; never decreases. */
  readonly nowMs: number;
  /** Sequence number of this command in the journal; unique and increasing. */
  readonly sequence: bigint;
}

export type Decision<Event> = { ok: true; events: Event[] } | { ok: false; rejection: Rejection };

export interface Decider<State, Command, Event> {
  /** Decides what a command does. Must not mutate state. Same inputs, same output. */
  decide(state: State, command: Command, context: CommandContext): Decision<Event>;
  /** Applies one event. May mutate and return the same state object (the engine owns it). */
  evolve(state: State, event: Event): State;
  initialState(): State;
}

/**
 * How a core's state is written to and read from a snapshot. `encode` must be canonical: two
 * states that are equal encode to the same text, so the engine can prove that replaying the
 * journal rebuilds byte-identical state by comparing encodings (and their hash).
 */
export interface StateCodec<State> {
  encode(state: State): string;
  decode(text: string): State;
}
