// What every durable adapter of the gateway's nonce port does the same way (SQLite:
// src/store/sqlite/gateway-nonces.ts, PostgreSQL: src/store/postgres/gateway-nonces.ts), written
// once: the in-memory window in front answers a replay, or a full partner, at once; the nonces it
// lets through are group-committed, gathered into batches that the adapter writes each in one go,
// with a bounded number of batches in flight and the nonces asked meanwhile gathered behind them;
// each request is answered only once the batch holding its nonce is recorded, with the outcome the
// adapter found for it. A batch that fails is refused whole: its requests get the error (which
// says whether anything may have been done) and its nonces are forgotten by the window, so that a
// retry is not called a replay. How a batch is written and made durable (the statement, the
// commit, the sync) is the adapter's.

import type { MemoryNonceWindow, NonceOutcome, NonceStore } from "./gateway-nonces.js";

/** Expired rows are deleted at most this often (per process), off the per-request path. */
export const gatewayNoncePruneIntervalMs = 60_000;

/** A nonce the window let through, waiting to be written with its batch. */
export interface PendingNonce {
  readonly partnerKey: string;
  readonly nonce: string;
  readonly expiresAtMs: number;
  /** The request's clock. */
  readonly nowMs: number;
  readonly resolve: (outcome: NonceOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/** Each nonce's outcome in the batch's order; undefined when every one is fresh. */
export type NonceBatchOutcomes = readonly NonceOutcome[] | undefined;

/**
 * Records one batch. Each nonce is judged by its own request's clock (its expiry less the window),
 * as the window in front judged it; `nowMs`, the earliest clock of the batch, is for housekeeping
 * (a prune deletes only what expired for every one of them). Throwing, or a rejected promise, says
 * nothing was recorded.
 */
export type NonceBatchWrite = (
  batch: readonly PendingNonce[],
  nowMs: number,
) => NonceBatchOutcomes | Promise<NonceBatchOutcomes>;

/** How an adapter's batches are gathered: the part of group commit that differs by database. */
export interface NonceBatchPolicy {
  /** Batches taken and not yet settled, at most (one scheduled to be taken counts). */
  readonly batchesInFlightMax: number;
  /** Nonces one batch carries at most (the rest go in the next); unbounded when absent. */
  readonly batchNoncesMax?: number;
  /** How much longer the next batch must wait before it is taken (≤ 0: not at all). */
  readonly nextBatchDelayMs?: () => number;
  /**
   * When a batch settles with nonces waiting, whether the next is taken in the same turn (nothing
   * more would join it) rather than at the next, which the nonces asked in this turn join.
   */
  readonly nextBatchAtOnceAfterSettled: boolean;
}

/** The gateway nonce store of an adapter, over its batch write and its window. */
export class NonceBatchQueue implements NonceStore {
  readonly #window: MemoryNonceWindow;
  readonly #write: NonceBatchWrite;
  readonly #policy: NonceBatchPolicy;
  #pending: PendingNonce[] = [];
  /** Batches taken (or scheduled to be) and not yet settled. */
  #batchesInFlight = 0;
  /** A batch is to be taken at the next turn, or once the delay is over: nonces asked now join it. */
  #scheduled = false;
  #delayed: ReturnType<typeof setTimeout> | undefined;

  constructor(window: MemoryNonceWindow, write: NonceBatchWrite, policy: NonceBatchPolicy) {
    this.#window = window;
    this.#write = write;
    this.#policy = policy;
  }

  remember(partnerKey: string, nonce: string, nowMs: number): NonceOutcome | Promise<NonceOutcome> {
    const expiresAtMs = nowMs + this.#window.windowMs;
    const outcome = this.#window.rememberUntil(partnerKey, nonce, nowMs, expiresAtMs);
    if (outcome !== "fresh") return outcome;
    return new Promise<NonceOutcome>((resolve, reject) => {
      this.#pending.push({ partnerKey, nonce, expiresAtMs, nowMs, resolve, reject });
      this.#schedule(false);
    });
  }

  /** Takes now the batch held back by the policy's delay, if one is (the store is closing). */
  writeDelayedNow(): void {
    if (this.#delayed === undefined) return;
    clearTimeout(this.#delayed);
    this.#writeNext();
  }

  #schedule(atOnce: boolean): void {
    if (this.#scheduled || this.#batchesInFlight >= this.#policy.batchesInFlightMax) return;
    this.#scheduled = true;
    this.#batchesInFlight += 1;
    const delayMs = this.#policy.nextBatchDelayMs?.() ?? 0;
    if (delayMs > 0) this.#delayed = setTimeout(this.#writeNext, delayMs);
    else if (atOnce) this.#writeNext();
    else setImmediate(this.#writeNext);
  }

  readonly #writeNext = (): void => {
    this.#scheduled = false;
    this.#delayed = undefined;
    const batch = this.#takeBatch();
    let written: NonceBatchOutcomes | Promise<NonceBatchOutcomes>;
    try {
      written = this.#write(batch, earliestClockMs(batch));
    } catch (error) {
      this.#refuse(batch, error);
      return;
    }
    if (!(written instanceof Promise)) {
      this.#settle(batch, written);
      return;
    }
    written.then(
      (outcomes) => this.#settle(batch, outcomes),
      (error: unknown) => this.#refuse(batch, error),
    );
  };

  #takeBatch(): PendingNonce[] {
    const noncesMax = this.#policy.batchNoncesMax ?? Number.POSITIVE_INFINITY;
    if (this.#pending.length <= noncesMax) {
      const batch = this.#pending;
      this.#pending = [];
      return batch;
    }
    return this.#pending.splice(0, noncesMax);
  }

  #settle(batch: readonly PendingNonce[], outcomes: NonceBatchOutcomes): void {
    for (let index = 0; index < batch.length; index += 1) {
      const entry = batch[index]!;
      const outcome = outcomes === undefined ? "fresh" : outcomes[index]!;
      // "full": not recorded, so the same nonce may be tried again once the partner is under its
      // cap. "replayed" (another node has it) stays in the window: the next replay costs nothing.
      if (outcome === "full") this.#window.forget(entry.partnerKey, entry.nonce);
      entry.resolve(outcome);
    }
    this.#batchSettled();
  }

  #refuse(batch: readonly PendingNonce[], error: unknown): void {
    for (const entry of batch) {
      this.#window.forget(entry.partnerKey, entry.nonce);
      entry.reject(error);
    }
    this.#batchSettled();
  }

  #batchSettled(): void {
    this.#batchesInFlight -= 1;
    if (this.#pending.length > 0) this.#schedule(this.#policy.nextBatchAtOnceAfterSettled);
  }
}

function earliestClockMs(batch: readonly PendingNonce[]): number {
  let nowMs = batch[0]!.nowMs;
  for (const entry of batch) nowMs = Math.min(nowMs, entry.nowMs);
  return nowMs;
}

/** Whether the expired rows are due to be pruned again: at most once per gatewayNoncePruneIntervalMs. */
export function pruneIsDue(prunedAtMs: number, nowMs: number): boolean {
  return nowMs - prunedAtMs >= gatewayNoncePruneIntervalMs;
}
