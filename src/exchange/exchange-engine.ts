// The exchange's engine as services and surfaces see it: submit commands, read committed state,
// follow commits. Two things implement it: the engine itself (src/engine/engine.ts, opened by
// exchange-host.ts on SQLite or by an engine node on PostgreSQL), and an API node's forwarding
// engine (src/cluster/forwarding-engine.ts), which sends commands to the leader and reads a local
// replica that follows the committed journal. Nothing here says which database it commits to, and
// no caller may add a projector.

import type { ExchangeCommand, ExchangeEvent, ExchangeState } from "../core/exchange.js";
import type { CommittedListener, EnginePhase, StatePosition, SubmitResult } from "../engine/engine.js";

export interface ExchangeEngine {
  /** "running" while it takes commands; "failed" once it stopped for good. */
  readonly phase: EnginePhase;
  /** The last committed command the state this engine reads has folded in. */
  readonly committedSequence: bigint;
  /** Commands waiting here to be sequenced (an API node: commands in flight to the leader). */
  readonly queuedCommands: number;
  /**
   * Why reads are refused right now while the phase is still "running" (an API node's replica
   * that held a forked journal, reloading from the database); undefined while it serves.
   */
  readonly unavailable?: string | undefined;
  /** Resolves after the durable commit; the state read here then already holds it. */
  submit(command: ExchangeCommand): Promise<SubmitResult<ExchangeEvent>>;
  /**
   * Commands queued together, all or none (overloaded: none), decided in order in one engine batch
   * when they fit in one (see Engine.submitMany); each result in order, after the durable commit.
   */
  submitMany(commands: readonly ExchangeCommand[]): Promise<SubmitResult<ExchangeEvent>[]>;
  /** Runs `reader` against committed state (see Engine.read). */
  read<T>(reader: (state: Readonly<ExchangeState>, position: StatePosition) => T): Promise<T>;
  /** Each committed batch, in sequence order, once (see Engine.onCommitted). */
  onCommitted(listener: CommittedListener<ExchangeCommand, ExchangeEvent>): () => void;
  /**
   * Only where the state read here can be replaced (an API node's replica that fell behind the
   * journal archive reloads from the latest snapshot): called right after the replacement, before
   * any later batch reaches onCommitted. The batches in between were never given to onCommitted,
   * so what a listener built from them must be rebuilt from the state read now.
   */
  onReloaded?(listener: (position: StatePosition) => void): () => void;
  /** Stops taking commands (the leader's engine first commits what is queued). */
  close(): Promise<void>;
}

/** The leader's engine: what only the node that writes has (the journal archiver reads it). */
export interface ExchangeLeaderEngine extends ExchangeEngine {
  /** The sequence of the last snapshot written: the journal before it may be archived. */
  readonly snapshotSequence: bigint;
}
