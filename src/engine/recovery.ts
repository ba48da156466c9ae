// Rebuilds the core's state at start: the latest snapshot, then every journal entry after it folded
// through `evolve`. Entries older than the latest snapshot may have moved to the journal archive
// (journal-archive.ts), so a full replay from the initial state reads the archive and then the
// live journal; verifyReplay uses that to prove live state, snapshot + tail and full replay agree
// byte for byte (TigerBeetle's "assert after replay").

import { createHash } from "node:crypto";
import type { Decider, StateCodec } from "../core/decider.js";
import { assert, JournalCorruptionError } from "./errors.js";
import { nextChainHash } from "./journal-chain.js";
import type { EngineStore, JournalSource, StateSnapshot } from "./store.js";

/** State as of a journal position. */
export interface StateAtSequence<State> {
  readonly state: State;
  /** The last command folded in, 0n for the initial state. */
  readonly sequence: bigint;
  /** nowMs of that command; 0 for the initial state. */
  readonly nowMs: number;
  /** The journal's chain hash at `sequence` (journal-chain.ts); null when none is known. */
  readonly chainHash: string | null;
}

export interface RecoveredState<State> extends StateAtSequence<State> {
  /** Sequence of the snapshot recovery started from, 0n if none. */
  readonly snapshotSequence: bigint;
}

export function hashEncodedState(encodedState: string): string {
  return createHash("sha256").update(encodedState).digest("hex");
}

export function makeSnapshot<State>(
  codec: StateCodec<State>,
  position: StateAtSequence<State>,
): StateSnapshot {
  const encoded = codec.encode(position.state);
  return {
    sequence: position.sequence,
    nowMs: position.nowMs,
    state: encoded,
    hash: hashEncodedState(encoded),
    chainHash: position.chainHash,
  };
}

export function initialPosition<State, Command, Event>(
  decider: Decider<State, Command, Event>,
): StateAtSequence<State> {
  return { state: decider.initialState(), sequence: 0n, nowMs: 0, chainHash: null };
}

/** Decodes a snapshot after checking its hash; the codec must give back exactly the same text. */
export function restoreSnapshot<State>(
  codec: StateCodec<State>,
  snapshot: StateSnapshot,
): StateAtSequence<State> {
  if (hashEncodedState(snapshot.state) !== snapshot.hash) {
    throw new JournalCorruptionError(`Snapshot at sequence ${snapshot.sequence} does not match its hash`);
  }
  const state = codec.decode(snapshot.state);
  assert(codec.encode(state) === snapshot.state, "the state codec round-trips a snapshot to the same text");
  return { state, sequence: snapshot.sequence, nowMs: snapshot.nowMs, chainHash: snapshot.chainHash ?? null };
}

/**
 * Folds journal entries after `from.sequence` up to and including `untilSequence` into `from.state`
 * (which it may mutate: evolve is allowed to). Refuses gaps, time going backwards, an entry that
 * does not match its chain hash, and one that follows another history than the one folded so far
 * (JournalForkError: the chain breaks inside the journal read).
 */
export async function replayJournal<State, Command, Event>(
  decider: Decider<State, Command, Event>,
  store: JournalSource<Command, Event>,
  from: StateAtSequence<State>,
  untilSequence: bigint,
): Promise<StateAtSequence<State>> {
  let { state, sequence, nowMs, chainHash } = from;
  if (untilSequence === sequence) return from;
  replay: for await (const batch of store.readJournal(sequence)) {
    for (const entry of batch) {
      if (entry.sequence > untilSequence) break replay;
      if (entry.sequence !== sequence + 1n) {
        throw new JournalCorruptionError(
          `Journal gap: expected sequence ${sequence + 1n}, found ${entry.sequence}`,
        );
      }
      if (entry.nowMs < nowMs) {
        throw new JournalCorruptionError(`Journal time goes backwards at sequence ${entry.sequence}`);
      }
      chainHash = nextChainHash(chainHash, entry);
      for (const event of entry.events) state = decider.evolve(state, event);
      sequence = entry.sequence;
      nowMs = entry.nowMs;
      if (sequence === untilSequence) break replay;
    }
  }
  if (sequence !== untilSequence) {
    throw new JournalCorruptionError(`Journal ends at sequence ${sequence}, expected ${untilSequence}`);
  }
  return { state, sequence, nowMs, chainHash };
}

/** Latest snapshot (if any) plus the journal after it: the state of the last durable command. */
export async function recoverState<State, Command, Event>(
  decider: Decider<State, Command, Event>,
  codec: StateCodec<State>,
  store: EngineStore<Command, Event, unknown>,
): Promise<RecoveredState<State>> {
  const lastSequence = await store.lastSequence();
  const snapshot = await store.loadLatestSnapshot();
  if (snapshot !== undefined && snapshot.sequence > lastSequence) {
    throw new JournalCorruptionError(
      `Snapshot at sequence ${snapshot.sequence} is ahead of the journal, which ends at ${lastSequence}`,
    );
  }
  const start = snapshot === undefined ? initialPosition(decider) : restoreSnapshot(codec, snapshot);
  const recovered = await replayJournal(decider, store, start, lastSequence);
  return { ...recovered, snapshotSequence: snapshot?.sequence ?? 0n };
}

export interface ReplayVerification {
  /** The committed sequence that was checked. */
  readonly sequence: bigint;
  /** sha256 of the live state's encoding. */
  readonly liveHash: string;
  /** sha256 of the state rebuilt from the initial state and the whole journal. */
  readonly fullReplayHash: string;
  /** sha256 of the state rebuilt from the latest snapshot at or before `sequence`, if there is one. */
  readonly snapshotReplayHash: string | undefined;
  /** True when every rebuilt encoding is byte-identical to the live one. */
  readonly identical: boolean;
}

/**
 * Rebuilds the state at `live.sequence` both ways and compares encodings with the live one. The
 * full replay reads `history` (the archive followed by the store, when entries were archived).
 */
export async function verifyReplayAgainst<State, Command, Event>(
  decider: Decider<State, Command, Event>,
  codec: StateCodec<State>,
  store: EngineStore<Command, Event, unknown>,
  live: { readonly sequence: bigint; readonly encodedState: string },
  history: JournalSource<Command, Event> = store,
): Promise<ReplayVerification> {
  const full = await replayJournal(decider, history, initialPosition(decider), live.sequence);
  const fullEncoded = codec.encode(full.state);
  const snapshot = await store.loadLatestSnapshot();
  let snapshotEncoded: string | undefined;
  if (snapshot !== undefined && snapshot.sequence <= live.sequence) {
    const fromSnapshot = await replayJournal(decider, store, restoreSnapshot(codec, snapshot), live.sequence);
    snapshotEncoded = codec.encode(fromSnapshot.state);
  }
  return {
    sequence: live.sequence,
    liveHash: hashEncodedState(live.encodedState),
    fullReplayHash: hashEncodedState(fullEncoded),
    snapshotReplayHash: snapshotEncoded === undefined ? undefined : hashEncodedState(snapshotEncoded),
    identical:
      fullEncoded === live.encodedState && (snapshotEncoded ?? live.encodedState) === live.encodedState,
  };
}
