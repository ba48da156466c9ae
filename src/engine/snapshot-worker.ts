// Snapshots encoded off the event loop. At a large state (a million resting orders) encoding and
// hashing a snapshot takes seconds, and the engine used to do it inline: every request, socket and
// commit waited. Here a worker thread keeps its own copy of the state (a "shadow"), folding the
// events of every committed batch the engine posts to it, in order; asked for a snapshot at
// sequence N, it encodes and hashes its copy (which is exactly the state at N, since messages
// arrive in order and evolve is deterministic) on its own thread, and answers with the snapshot.
// The engine's thread pays the hand-off (below) and the store write.
//
// What is posted is the batch's journal text, not its events: each entry's events as the journal
// codec encoded them to hash and write the entry (journal-chain.ts's entryTexts, already made), one
// line an entry, the batch one string. Structured-cloning the events themselves (deep objects
// holding bigints) was most of the hand-off's cost on the request thread (docs/performance.md,
// "i31-snap"); a string is cloned as one copy of its bytes, and the worker decodes the text on its
// own thread. The worker folds exactly what a replay of the journal folds: the events as decoded
// from their stored text.
//
// Batches are not posted one by one: the worker needs them only by the time a snapshot is asked
// for, so their texts are kept and posted together once they reach handOffCharsMin (or before a
// snapshot request). Each message wakes the worker's thread, which on a busy 2-core machine took
// the core from the request thread (the profile put that wait in postMessage); a few hundred KB at a
// time, the worker wakes a few times a second at full load instead of after every batch.
//
// The answer is packed on the worker too (brotli, snapshot-packing.ts) and its buffer transferred,
// not copied: the engine's thread never holds the snapshot's text (91 MB at a million resting
// orders, whose copy out of the message alone stalled the event loop), only ~4 MB of bytes that
// the store writes in small steps.
//
// The cost is a second copy of the state in memory. A divergence between the copies would show as
// a snapshot whose replay differs from the journal's (verifyReplay), and recovery checks every
// snapshot's hash and the core's invariants before serving.

import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { Decider, StateCodec } from "../core/decider.js";
import { decodeJournalText, entryTexts } from "./journal-chain.js";
import { packEncodedState } from "./snapshot-packing.js";
import type { JournalEntry, PackedStateSnapshot } from "./store.js";

/** Where the worker finds the core: a module URL and the names of its decider and codec exports. */
export interface SnapshotWorkerCore {
  readonly moduleUrl: string;
  readonly deciderExport: string;
  readonly codecExport: string;
}

type ToWorker =
  /** Committed batches' entries, in sequence order, as batchText writes them. */
  | { readonly kind: "apply"; readonly batch: string }
  | { readonly kind: "snapshot"; readonly sequence: bigint };

type FromWorker =
  | { readonly kind: "snapshot"; readonly snapshot: PackedStateSnapshot }
  | { readonly kind: "error"; readonly message: string };

interface WorkerStart {
  readonly core: SnapshotWorkerCore;
  readonly encodedState: string | null;
  readonly sequence: bigint;
  readonly nowMs: number;
}

/** Batch texts kept before they are posted to the worker together (UTF-16 code units). */
export const handOffCharsMin = 256 * 1024;

/** The engine's side: posts committed events, asks for snapshots. */
export class SnapshotWorker {
  readonly #worker: Worker;
  readonly #handOffCharsMin: number;
  /** Committed batches' texts not posted yet, in order. */
  #pending: string[] = [];
  #pendingChars = 0;
  #waiting: { resolve: (snapshot: PackedStateSnapshot) => void; reject: (error: Error) => void } | undefined;
  #failure: Error | undefined;

  constructor(
    core: SnapshotWorkerCore,
    start: { encodedState: string; sequence: bigint; nowMs: number },
    options: { readonly handOffCharsMin?: number } = {},
  ) {
    this.#handOffCharsMin = options.handOffCharsMin ?? handOffCharsMin;
    const data: WorkerStart = { core, ...start };
    const url = new URL(import.meta.url);
    // Run from TypeScript sources (npm start, the tests), the worker first registers tsx's loader
    // (a worker's entry file is not passed through loaders given on the command line).
    this.#worker = url.pathname.endsWith(".ts")
      ? new Worker(
          `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`,
          { eval: true, workerData: data },
        )
      : new Worker(url, { workerData: data });
    // The worker keeps the process alive only while a snapshot is being encoded (an engine closing
    // waits for its last snapshot; an idle worker must not hold a stopping process open).
    this.#worker.unref();
    this.#worker.on("message", (message: FromWorker) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      this.#worker.unref();
      if (message.kind === "snapshot") waiting?.resolve(message.snapshot);
      else this.#fail(new Error(`snapshot worker: ${message.message}`), waiting);
    });
    this.#worker.on("error", (error) => this.#fail(error, this.#waiting));
    this.#worker.on("exit", (code) => {
      if (code !== 0) this.#fail(new Error(`snapshot worker exited with ${code}`), this.#waiting);
    });
  }

  /** True once the worker has failed; its copy of the state can no longer be trusted. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** A committed batch, in sequence order: the worker folds its events (posted once enough wait). */
  apply(entries: readonly JournalEntry<unknown, unknown>[]): void {
    if (this.#failure !== undefined || entries.length === 0) return;
    const text = batchText(entries);
    this.#pending.push(text);
    this.#pendingChars += text.length;
    if (this.#pendingChars >= this.#handOffCharsMin) this.#postPending();
  }

  /** The snapshot at `sequence`, which must be the last sequence applied. One request at a time. */
  snapshot(sequence: bigint): Promise<PackedStateSnapshot> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#waiting !== undefined) return Promise.reject(new Error("a snapshot is already being encoded"));
    this.#postPending();
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#worker.ref();
      const message: ToWorker = { kind: "snapshot", sequence };
      this.#worker.postMessage(message);
    });
  }

  async close(): Promise<void> {
    // A timer holds the loop until the worker has stopped: Node 20 (20.20) can let the loop empty
    // while terminate()'s promise of a worker that was unref'd is pending, even after ref(), so a
    // closing engine never finished closing (seen under load; the process exited mid-close).
    const keepAlive = setInterval(() => {}, 1_000);
    try {
      await this.#worker.terminate();
    } finally {
      clearInterval(keepAlive);
    }
  }

  #postPending(): void {
    if (this.#pending.length === 0) return;
    const message: ToWorker = { kind: "apply", batch: this.#pending.join("\n") };
    this.#pending = [];
    this.#pendingChars = 0;
    this.#worker.postMessage(message);
  }

  #fail(error: Error, waiting: { reject: (error: Error) => void } | undefined): void {
    this.#failure ??= error;
    this.#pending = [];
    this.#pendingChars = 0;
    this.#waiting = undefined;
    this.#worker.unref();
    waiting?.reject(error);
  }
}

/**
 * The part of a batch's entries the worker folds, as one string: a line an entry, `<sequence>
 * <nowMs> <events' journal text>`. Either journal text form is JSON after its mark, which escapes
 * every newline, so a line holds one entry.
 */
export function batchText(entries: readonly JournalEntry<unknown, unknown>[]): string {
  let text = "";
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index]!;
    if (index > 0) text += "\n";
    text += `${entry.sequence} ${entry.nowMs} ${entryTexts(entry).events}`;
  }
  return text;
}

/** One entry of a batchText, decoded. */
export interface FoldedEntry {
  readonly sequence: bigint;
  readonly nowMs: number;
  readonly events: readonly unknown[];
}

/** Calls `fold` with each entry of a batchText, in order. */
export function forEachBatchEntry(batch: string, fold: (entry: FoldedEntry) => void): void {
  let start = 0;
  while (start < batch.length) {
    const lineEnd = nextIndex(batch, "\n", start, batch.length);
    const sequenceEnd = nextIndex(batch, " ", start, lineEnd);
    const nowMsEnd = nextIndex(batch, " ", sequenceEnd + 1, lineEnd);
    if (nowMsEnd === lineEnd) throw new Error("a malformed batch line");
    const nowMs = Number(batch.slice(sequenceEnd + 1, nowMsEnd));
    if (!Number.isSafeInteger(nowMs)) throw new Error("a malformed batch line");
    fold({
      sequence: BigInt(batch.slice(start, sequenceEnd)),
      nowMs,
      events: decodeJournalText<unknown[]>(batch.slice(nowMsEnd + 1, lineEnd)),
    });
    start = lineEnd + 1;
  }
}

/** The index of `search` in `text` from `from`, or `end` when it is not before `end`. */
function nextIndex(text: string, search: string, from: number, end: number): number {
  const index = text.indexOf(search, from);
  return index === -1 || index > end ? end : index;
}

async function runWorker(start: WorkerStart): Promise<void> {
  const port = parentPort!;
  const module = (await import(start.core.moduleUrl)) as Record<string, unknown>;
  const decider = module[start.core.deciderExport] as Decider<unknown, unknown, unknown>;
  const codec = module[start.core.codecExport] as StateCodec<unknown>;
  const { createHash } = await import("node:crypto");
  let state = start.encodedState === null ? decider.initialState() : codec.decode(start.encodedState);
  let sequence = start.sequence;
  let nowMs = start.nowMs;
  port.on("message", (message: ToWorker) => {
    try {
      if (message.kind === "apply") {
        forEachBatchEntry(message.batch, (entry) => {
          if (entry.sequence !== sequence + 1n)
            throw new Error(`expected sequence ${sequence + 1n}, got ${entry.sequence}`);
          for (const event of entry.events) state = decider.evolve(state, event);
          sequence = entry.sequence;
          nowMs = entry.nowMs;
        });
        return;
      }
      if (message.sequence !== sequence) throw new Error(`asked for ${message.sequence}, at ${sequence}`);
      const encoded = codec.encode(state);
      const snapshot: PackedStateSnapshot = {
        sequence,
        nowMs,
        packedState: packEncodedState(encoded),
        hash: createHash("sha256").update(encoded).digest("hex"),
      };
      const answer: FromWorker = { kind: "snapshot", snapshot };
      port.postMessage(answer, [snapshot.packedState.buffer as ArrayBuffer]);
    } catch (error) {
      const answer: FromWorker = {
        kind: "error",
        message: error instanceof Error ? error.message : String(error),
      };
      port.postMessage(answer);
    }
  });
}

if (!isMainThread && (workerData as WorkerStart | undefined)?.core !== undefined) {
  void runWorker(workerData as WorkerStart);
}
