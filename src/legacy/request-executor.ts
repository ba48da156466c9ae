// Executes the queued legacy order requests in submission order through the engine, and records
// each result. The queue is the legacy_requests table, so requests survive a crash; execution is
// idempotent, because each command carries a clientOrderId derived from its fgRequestId and the
// core answers a repeated clientOrderId with the first order (OrderRepeated) instead of a second.
// A crash after the engine's commit and before the result is recorded therefore re-runs the
// request on the next start and records the order that already exists: no order executes twice.
// Several API nodes may run an executor each over one shared queue: each claims its batch
// (LegacyRequestStore.claim), so a request is executed by one node at a time, and a claim lapses
// after claimLeaseMs so the requests of a node that died run elsewhere (docs/decisions.md).

import { randomUUID } from "node:crypto";
import type { ExchangeCommand } from "../core/commands.js";
import type { Rejection } from "../core/errors.js";
import type { ExchangeEvent } from "../core/events.js";
import type { SubmitResult } from "../engine/engine.js";
import type { LegacyRequestCompletion, LegacyRequestRecord, LegacyRequestStore } from "../store/legacy.js";
import { notifyStatuses } from "../store/legacy.js";
import { placeOrderCommand } from "./order-request.js";
import { type ExecutedOrder, failureContent, successContent } from "./request-results.js";

/** Requests submitted to the engine together; they still commit in order, in as few batches as the engine likes. */
export const executorBatchRequestsMax = 64;
/** After the engine refused to take work (overloaded, closing), wait this long before trying again. */
export const executorBackoffMs = 200;
/**
 * How long a claimed batch is this executor's alone. It must outlast the longest engine submission
 * (forwarding to the leader and its retries across a takeover included): a request whose claim
 * lapsed while its first submission is still in flight may be submitted again by another node.
 * A node that dies holds its claims this long at most.
 */
export const executorClaimLeaseMs = 30_000;
/**
 * How often the queue is looked at without a wake-up: requests queued through another node, and
 * those a dead node's lapsed claims gave back, are found at the latest this long after.
 */
export const executorPollIntervalMs = 1_000;

/** What the executor needs of the exchange; the platform's engine and read models provide it. */
export interface ExecutorExchange {
  submit(command: ExchangeCommand): Promise<SubmitResult<ExchangeEvent>>;
  /** The order a repeated request named, from the orders read model. */
  orderById(orderId: number): Promise<ExecutedOrder | undefined>;
}

export interface DescribedRejection {
  readonly errorCode: number;
  readonly msg: string;
}

export interface RequestExecutorOptions {
  readonly store: LegacyRequestStore;
  readonly exchange: ExecutorExchange;
  /** The legacy surface's wording of a core rejection (src/api/legacy/errors.ts). */
  readonly describeRejection: (rejection: Rejection) => DescribedRejection;
  readonly nowMs: () => number;
  /** A request reached its result; the notifier delivers it. */
  readonly onCompleted?: () => void;
  readonly onError: (error: unknown) => void;
  readonly backoffMs?: number;
  /** This executor's name in claims; a random one by default (unique per process). */
  readonly claimant?: string;
  readonly claimLeaseMs?: number;
  readonly pollIntervalMs?: number;
}

type Outcome =
  | { readonly kind: "done"; readonly completion: LegacyRequestCompletion }
  /** The engine did not take the command (overloaded or stopping): the request stays PENDING. */
  | { readonly kind: "retry" };

export class LegacyRequestExecutor {
  readonly #options: RequestExecutorOptions;
  readonly claimant: string;
  #running = false;
  #loop: Promise<void> | undefined;
  #wakeAgain = false;
  #timer: NodeJS.Timeout | undefined;
  #poller: NodeJS.Timeout | undefined;

  constructor(options: RequestExecutorOptions) {
    this.#options = options;
    this.claimant = options.claimant ?? `executor-${randomUUID()}`;
  }

  /** Starts executing what is queued, including requests a crash left PENDING. */
  start(): void {
    this.#running = true;
    clearInterval(this.#poller);
    this.#poller = setInterval(() => this.wake(), this.#options.pollIntervalMs ?? executorPollIntervalMs);
    this.#poller.unref();
    this.wake();
  }

  /** A request was queued. */
  wake(): void {
    if (!this.#running) return;
    if (this.#loop !== undefined) {
      this.#wakeAgain = true;
      return;
    }
    this.#loop = this.#drain().finally(() => {
      this.#loop = undefined;
      if (this.#wakeAgain) {
        this.#wakeAgain = false;
        this.wake();
      }
    });
  }

  /**
   * Stops after the batch in flight has been recorded and gives back what it still holds; what is
   * still queued runs on the next start (or on another node at once).
   */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    clearInterval(this.#poller);
    await this.#loop;
    try {
      await this.#options.store.releaseClaims(this.claimant);
    } catch (error) {
      // The claims lapse by themselves after the lease.
      this.#options.onError(error);
    }
  }

  /** Resolves once nothing is queued (tests). */
  async idle(): Promise<void> {
    while (this.#loop !== undefined) await this.#loop;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#running) {
        const batch = await this.#options.store.claim({
          claimant: this.claimant,
          limit: executorBatchRequestsMax,
          nowMs: this.#options.nowMs(),
          leaseMs: this.#options.claimLeaseMs ?? executorClaimLeaseMs,
        });
        if (batch.length === 0) return;
        const outcomes = await Promise.all(batch.map((request) => this.#execute(request)));
        // Only the prefix before the first request the engine did not take is recorded, so results
        // keep submission order; the later ones re-run, and a repeat finds the order they placed.
        const firstRetry = outcomes.findIndex((outcome) => outcome.kind === "retry");
        const done = (firstRetry === -1 ? outcomes : outcomes.slice(0, firstRetry)).flatMap((outcome) =>
          outcome.kind === "done" ? [outcome.completion] : [],
        );
        if (done.length > 0) {
          await this.#options.store.complete(done, this.#options.nowMs(), this.claimant);
          this.#options.onCompleted?.();
        }
        if (firstRetry !== -1) {
          this.#retryLater();
          return;
        }
      }
    } catch (error) {
      this.#options.onError(error);
      this.#retryLater();
    }
  }

  #retryLater(): void {
    if (!this.#running) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.wake(), this.#options.backoffMs ?? executorBackoffMs);
    this.#timer.unref();
  }

  async #execute(request: LegacyRequestRecord): Promise<Outcome> {
    const { requestId, instruction } = request;
    let result: SubmitResult<ExchangeEvent>;
    try {
      result = await this.#options.exchange.submit(placeOrderCommand(requestId, request.userId, instruction));
    } catch {
      return { kind: "retry" };
    }
    if (!result.ok) {
      const { errorCode, msg } = this.#options.describeRejection(result.rejection);
      return done(requestId, "FAILED", msg, failureContent(requestId, instruction, errorCode, msg));
    }
    const order = await this.#orderOf(result.events);
    if (order === undefined) {
      // Accepted without an order: not something PlaceOrder does; record it rather than loop on it.
      const msg = "Internal server error";
      return done(requestId, "FAILED", msg, failureContent(requestId, instruction, 500, msg));
    }
    return done(requestId, "SUCCESS", null, successContent(requestId, instruction, order));
  }

  async #orderOf(events: readonly ExchangeEvent[]): Promise<ExecutedOrder | undefined> {
    for (const event of events) {
      if (event.type === "OrderPlaced") return event;
      if (event.type === "OrderRepeated") return this.#options.exchange.orderById(event.orderId);
    }
    return undefined;
  }
}

function done(
  requestId: string,
  status: "SUCCESS" | "FAILED",
  errorMsg: string | null,
  notifyContent: string,
): Outcome {
  return {
    kind: "done",
    // Every result is due for delivery at once; the notifier finds out whether there is a webhook.
    completion: {
      requestId,
      status,
      errorMsg,
      notifyContent,
      notifyStatus: notifyStatuses.pending,
      nextNotifyAtMs: 0,
    },
  };
}
