// The engine leader's command port without the network, for an all-in-one node whose own engine node
// leads: its API half hands a command straight to the engine instead of POSTing it to itself over
// loopback HTTP. Everything else is what the HTTP port does (command-server.ts): the command keeps
// its forward id (recorded with the journal entry, so exactly-once across takeovers holds), it is
// taken only while the node leads and its engine runs, and the answer is the same CommandAnswer,
// refusals included. What it saves per command is CPU: an HTTP request and response on both sides,
// the HMAC signature and its check, and the body and answer through the journal codec twice. And
// its API half's copy of the engine state is handed each committed batch (onCommitted) instead of
// reading it back from the database after every commit.

import type { SubmitResult } from "../engine/engine.js";
import { EngineFatalError, EngineOverloadedError, EngineStoppedError } from "../engine/errors.js";
import type { JournalEntry } from "../engine/store.js";
import type { CommandAnswer, CommandGroupAnswer, CommandRefusal } from "./command-wire.js";

export interface LocalCommandPort<Command, Event> {
  /**
   * True when this process's engine leads at `epoch` from the command port at `url` and takes
   * commands: the advertised leader a forwarding engine found is this very node.
   */
  serves(leader: { readonly url: string; readonly epoch: bigint }): boolean;
  submit(command: Command, forwardId: string): Promise<CommandAnswer<Event>>;
  /** A group queued together (Engine.submitMany); `forwardIds` has one id per command. */
  submitMany(commands: readonly Command[], forwardIds: readonly string[]): Promise<CommandGroupAnswer<Event>>;
  /**
   * Calls `listener` with each batch this node's engine commits while it leads, in order, right
   * after the commit and before any submitter is answered (the engine's onCommitted). The entries
   * are the engine's own objects: a listener that keeps them keeps copies. Returns an unsubscribe.
   */
  onCommitted(listener: (entries: readonly JournalEntry<Command, Event>[]) => void): () => void;
}

/** How the engine's failures are told to the forwarding side (the same as over HTTP). */
export function refusalOf(error: unknown): { refused: CommandRefusal; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof EngineOverloadedError) return { refused: "overloaded", message };
  if (error instanceof EngineStoppedError) return { refused: "stopped", message };
  if (error instanceof EngineFatalError) return { refused: "fatal", message };
  return { refused: "fatal", message };
}

/** Runs `submit` and turns its result or failure into the answer the command port sends. */
export function answerOf<Command, Event>(
  submit: (command: Command, forwardId: string) => Promise<SubmitResult<Event>>,
  command: Command,
  forwardId: string,
): Promise<CommandAnswer<Event>> {
  return submit(command, forwardId).then(
    (result): CommandAnswer<Event> => result,
    (error: unknown): CommandAnswer<Event> => ({ ok: false, ...refusalOf(error) }),
  );
}

/** Runs `submitMany` and turns its results or failure into the answer the command port sends. */
export function groupAnswerOf<Command, Event>(
  submitMany: (commands: readonly Command[], forwardIds: readonly string[]) => Promise<SubmitResult<Event>[]>,
  commands: readonly Command[],
  forwardIds: readonly string[],
): Promise<CommandGroupAnswer<Event>> {
  return submitMany(commands, forwardIds).then(
    (results): CommandGroupAnswer<Event> => ({ ok: true, results }),
    (error: unknown): CommandGroupAnswer<Event> => ({ ok: false, ...refusalOf(error) }),
  );
}
