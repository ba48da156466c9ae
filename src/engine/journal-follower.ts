// A warm copy of the engine's state that is not the engine: it starts from the latest snapshot plus
// the journal (recovery.ts, the same path a restarting engine takes) and then folds in whatever the
// leader appends, read by sequence. Whatever wakes it (a NOTIFY, a timer) only says "look again", so
// a lost wake-up delays it and never loses an entry. A standby keeps one, and on takeover it is
// already at (or a few entries behind) the end of the journal.
//
// It also checks that the journal is still the history it holds (journal-chain.ts): every entry it
// folds must link to the chain hash it holds, and each catch-up reads from the entry at its own
// position, which must still be there with the hash it holds. A database that now ends before that
// position, or holds another entry there (a replica promoted after an asynchronous failover lost
// what this copy had folded, the other side of a split brain), or an entry that links elsewhere, is
// a fork: JournalForkError, and the copy must be rebuilt from the database's own snapshot and
// journal. An entry the copy cannot fold (evolve throws: "order id out of sequence") says the same
// of a journal that carries no hashes, and is refused the same way.

import type { Decider, StateCodec } from "../core/decider.js";
import { JournalCorruptionError } from "./errors.js";
import { checkHeldEntry, JournalForkError, nextChainHash } from "./journal-chain.js";
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
   * Throws JournalForkError when they link to another chain hash than the copy holds.
   */
  foldCommitted(entries: readonly JournalEntry<Command, Event>[]): boolean {
    const unfolded = this.#unfolded(entries);
    if (unfolded.length === 0) return true;
    if (unfolded[0]!.sequence !== this.#position.sequence + 1n) return false;
    // The engine that hashed them handed them over: their links are checked, not their hashes.
    this.#fold(unfolded, false);
    return true;
  }

  /**
   * Entry by entry, moving the position after each, so a read that fails half-way (a lost
   * connection) leaves state and position agreeing and the next pass goes on from there.
   * (recovery.ts's replayJournal checks only at the end, which suits a start but not a follower.)
   */
  async #foldNewEntries(): Promise<void> {
    // The read starts at the entry the copy holds last, so the same query says whether the journal
    // still holds it (one row more per catch-up). Archived, it is gone and the next entry's link
    // is what is checked.
    const { sequence: held, chainHash: heldHash } = this.#position;
    let checked = held === 0n;
    for await (const batch of this.#store.readJournal(held === 0n ? 0n : held - 1n)) {
      let page = batch;
      if (!checked) {
        checked = true;
        if (page[0]!.sequence === held) {
          const hash = checkHeldEntry(heldHash, page[0]!);
          // A copy that held no hash (a journal written before the chain) takes the journal's.
          if (hash !== heldHash && this.#position.sequence === held) {
            this.#position = { ...this.#position, chainHash: hash };
          }
          page = page.slice(1);
        }
      }
      // A hand-over (foldCommitted) may have folded some of this page while it was being read.
      this.#fold(this.#unfolded(page));
    }
    if (!checked) {
      // The journal keeps its last entry whatever is archived: none at or after the position means
      // the database lost entries this copy holds.
      throw new JournalForkError(
        `Journal fork: the journal ends before sequence ${held}, which this copy holds`,
        held,
      );
    }
  }

  /** The entries after the position (a batch is in sequence order). */
  #unfolded(batch: readonly JournalEntry<Command, Event>[]): readonly JournalEntry<Command, Event>[] {
    const first = batch.findIndex((entry) => entry.sequence > this.#position.sequence);
    return first === -1 ? [] : first === 0 ? batch : batch.slice(first);
  }

  #fold(batch: readonly JournalEntry<Command, Event>[], verifyContent = true): void {
    for (const entry of batch) {
      const { sequence, nowMs, chainHash } = this.#position;
      if (entry.sequence !== sequence + 1n) {
        throw new JournalCorruptionError(
          `Journal gap: expected sequence ${sequence + 1n}, found ${entry.sequence}`,
        );
      }
      if (entry.nowMs < nowMs) {
        throw new JournalCorruptionError(`Journal time goes backwards at sequence ${entry.sequence}`);
      }
      // Checked before anything is folded: a refused entry leaves the copy as it was.
      const nextHash = nextChainHash(chainHash, entry, verifyContent);
      let state = this.#position.state;
      try {
        for (const event of entry.events) state = this.#decider.evolve(state, event);
      } catch (error) {
        // The entry does not apply to this state: the copy and the journal hold different histories
        // (a journal without hashes cannot say so sooner). evolve may have changed the state in
        // place: the copy cannot be used again, only rebuilt.
        throw new JournalForkError(
          `Journal fork at sequence ${entry.sequence}: the entry does not apply to this copy (${error instanceof Error ? error.message : String(error)})`,
          entry.sequence,
        );
      }
      this.#position = {
        ...this.#position,
        state,
        sequence: entry.sequence,
        nowMs: entry.nowMs,
        chainHash: nextHash,
      };
    }
    if (batch.length > 0) this.#onFolded?.(batch);
  }
}
