// A warm copy of the engine's state that is not the engine: it starts from the latest snapshot plus
// the journal (recovery.ts, the same path a restarting engine takes) and then folds in whatever the
// leader appends, read by sequence. Whatever wakes it (a NOTIFY, a timer) only says "look again", so
// a lost wake-up delays it and never loses an entry. A standby keeps one, and on takeover it is
// already at (or a few entries behind) the end of the journal.

import type { Decider, StateCodec } from "../core/decider.js";
import { JournalCorruptionError } from "./errors.js";
import { hashEncodedState, type RecoveredState, recoverState } from "./recovery.js";
import type { EngineStore, JournalEntry } from "./store.js";

export interface JournalFollowerOptions<State, Command, Event> {
  readonly decider: Decider<State, Command, Event>;
  readonly codec: StateCodec<State>;
  readonly store: EngineStore<Command, Event, unknown>;
  /**
   * Called after each page of entries is folded in, with those entries, while the state is exactly
   * at the last of them (an API node's realtime hub reads the state from inside it, as it does from
   * the engine's onCommitted). Must not throw.
   */
  readonly onFolded?: (entries: readonly JournalEntry<Command, Event>[]) => void;
}

export class JournalFollower<State, Command, Event> {
  readonly #decider: Decider<State, Command, Event>;
  readonly #codec: StateCodec<State>;
  #store: EngineStore<Command, Event, unknown>;
  readonly #onFolded: ((entries: readonly JournalEntry<Command, Event>[]) => void) | undefined;
  #position: RecoveredState<State>;
  /** The catch-up running now; a second call joins it and then runs once more. */
  #running: Promise<bigint> | undefined;
  #again = false;

  static async start<State, Command, Event>(
    options: JournalFollowerOptions<State, Command, Event>,
  ): Promise<JournalFollower<State, Command, Event>> {
    const recovered = await recoverState(options.decider, options.codec, options.store);
    return new JournalFollower(options, recovered);
  }

  private constructor(
    options: JournalFollowerOptions<State, Command, Event>,
    recovered: RecoveredState<State>,
  ) {
    this.#decider = options.decider;
    this.#codec = options.codec;
    this.#store = options.store;
    this.#onFolded = options.onFolded;
    this.#position = recovered;
  }

  /** The last journal entry folded in. */
  get sequence(): bigint {
    return this.#position.sequence;
  }

  /** The state with its position, for handing to an engine on takeover. Do not mutate it. */
  get position(): RecoveredState<State> {
    return this.#position;
  }

  /** sha256 of the codec's encoding of the current state (compare with the leader's). */
  stateHash(): string {
    return hashEncodedState(this.#codec.encode(this.#position.state));
  }

  /** Reads with another store from now on (a takeover swaps the reader for the fenced writer). */
  useStore(store: EngineStore<Command, Event, unknown>): void {
    this.#store = store;
  }

  /**
   * Folds in every entry up to the journal's end as it is now, and resolves with the sequence
   * reached. Calls made while one runs are merged into one more pass after it.
   */
  catchUp(): Promise<bigint> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    const run = (async () => {
      try {
        do {
          this.#again = false;
          await this.#foldNewEntries();
        } while (this.#again);
        return this.#position.sequence;
      } finally {
        this.#running = undefined;
      }
    })();
    this.#running = run;
    return run;
  }

  /**
   * Catches up at least to `sequence`: a pass already running that gets there is enough (catchUp
   * would queue one more pass after it, a read that finds nothing when nothing else was committed).
   */
  async catchUpTo(sequence: bigint): Promise<bigint> {
    const running = this.#running;
    if (running !== undefined) {
      const reached = await running;
      if (reached >= sequence) return reached;
    }
    if (this.#position.sequence >= sequence) return this.#position.sequence;
    return this.catchUp();
  }

  /**
   * Folds in entries handed over in-process by the engine that committed them (an all-in-one
   * node's own leader), so the copy follows without reading them back from the store. They must be
   * the follower's own: copies, never objects the engine keeps (evolve may keep an event's arrays
   * in the state it changes in place). Hand-overs and reads may interleave: each folds only the
   * entries the copy does not hold yet. Returns false, folding nothing, when the new entries do not
   * directly follow the position (the copy is behind): the caller then asks for a catch-up.
   */
  foldCommitted(entries: readonly JournalEntry<Command, Event>[]): boolean {
    const unfolded = this.#unfolded(entries);
    if (unfolded.length === 0) return true;
    if (unfolded[0]!.sequence !== this.#position.sequence + 1n) return false;
    this.#fold(unfolded);
    return true;
  }

  /**
   * Entry by entry, moving the position after each, so a read that fails half-way (a lost
   * connection) leaves state and position agreeing and the next pass goes on from there.
   * (recovery.ts's replayJournal checks only at the end, which suits a start but not a follower.)
   */
  async #foldNewEntries(): Promise<void> {
    for await (const batch of this.#store.readJournal(this.#position.sequence)) {
      // A hand-over (foldCommitted) may have folded some of this page while it was being read.
      this.#fold(this.#unfolded(batch));
    }
  }

  /** The entries after the position (a batch is in sequence order). */
  #unfolded(batch: readonly JournalEntry<Command, Event>[]): readonly JournalEntry<Command, Event>[] {
    const first = batch.findIndex((entry) => entry.sequence > this.#position.sequence);
    return first === -1 ? [] : first === 0 ? batch : batch.slice(first);
  }

  #fold(batch: readonly JournalEntry<Command, Event>[]): void {
    for (const entry of batch) {
      const { sequence, nowMs } = this.#position;
      if (entry.sequence !== sequence + 1n) {
        throw new JournalCorruptionError(
          `Journal gap: expected sequence ${sequence + 1n}, found ${entry.sequence}`,
        );
      }
      if (entry.nowMs < nowMs) {
        throw new JournalCorruptionError(`Journal time goes backwards at sequence ${entry.sequence}`);
      }
      let state = this.#position.state;
      for (const event of entry.events) state = this.#decider.evolve(state, event);
      this.#position = { ...this.#position, state, sequence: entry.sequence, nowMs: entry.nowMs };
    }
    if (batch.length > 0) this.#onFolded?.(batch);
  }
}
