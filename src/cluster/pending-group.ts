// A group of commands forwarded together (ForwardingEngine.submitMany) while it is being answered:
// the results so far, the commands still unanswered, and the id they go under next. Each command is
// journaled under its own forward id (groupItemForwardId). After a lost answer and a takeover, those
// found in the journal are answered from it; the rest were not committed (refused, or never
// decided) and go to the new leader again as a new group, under a new id.

import { randomUUID } from "node:crypto";
import type { SubmitResult } from "../engine/engine.js";
import type { JournalEntry } from "../engine/store.js";
import { groupItemForwardId } from "./command-wire.js";

export class PendingGroup<Command, Event> {
  readonly #commands: readonly Command[];
  readonly #results: (SubmitResult<Event> | undefined)[];
  /** Indexes of the commands not answered yet, in order. */
  #pending: number[];
  #id = randomUUID();
  /** The encoded request for the commands left, made once per id. */
  #body: string | undefined;

  constructor(commands: readonly Command[]) {
    this.#commands = commands;
    this.#results = commands.map(() => undefined);
    this.#pending = commands.map((_, index) => index);
  }

  /** The id the commands left go under. */
  get id(): string {
    return this.#id;
  }

  get commandsLeft(): Command[] {
    return this.#pending.map((index) => this.#commands[index]!);
  }

  /** How many commands are not answered yet. */
  get left(): number {
    return this.#pending.length;
  }

  /** Each command left's forward id, in order. */
  forwardIds(): string[] {
    return this.#pending.map((_, position) => groupItemForwardId(this.#id, position));
  }

  /** The request body for the commands left, encoded by `encode` once per id. */
  body(encode: (id: string, commands: Command[]) => string): string {
    this.#body ??= encode(this.#id, this.commandsLeft);
    return this.#body;
  }

  /** The leader's results for the commands left, in order: the whole group's results. */
  fill(answered: readonly SubmitResult<Event>[]): SubmitResult<Event>[] {
    if (answered.length !== this.#pending.length)
      throw new Error("the leader answered a group with a wrong count");
    this.#pending.forEach((index, position) => {
      this.#results[index] = answered[position];
    });
    this.#pending = [];
    return this.#results as SubmitResult<Event>[];
  }

  /**
   * The journal's entries for the commands left (undefined: not committed), looked up once a later
   * epoch leads: the found ones are answered from it; the rest become a new group under a new id.
   * Returns how many were found.
   */
  settle(entries: readonly (JournalEntry<Command, Event> | undefined)[]): number {
    const left: number[] = [];
    this.#pending.forEach((index, position) => {
      const entry = entries[position];
      if (entry === undefined) left.push(index);
      else
        this.#results[index] = {
          ok: true,
          sequence: entry.sequence,
          nowMs: entry.nowMs,
          events: entry.events,
        };
    });
    const found = this.#pending.length - left.length;
    // What is left was never committed: it goes again as a new group, under a new id.
    if (left.length > 0) this.#renew();
    this.#pending = left;
    return found;
  }

  /** Every result, once nothing is left. */
  get results(): SubmitResult<Event>[] {
    if (this.#pending.length > 0) throw new Error("the group is not answered yet");
    return this.#results as SubmitResult<Event>[];
  }

  /** Part of the group is already answered from the journal: "nothing was done" can no longer be said. */
  partlySettled(): boolean {
    return this.#results.some((result) => result !== undefined);
  }

  #renew(): void {
    this.#id = randomUUID();
    this.#body = undefined;
  }
}
