// Delivers every request result to its merchant's webhookUrl, signed the Standard Webhooks way,
// retried with capped exponential backoff for a bounded number of attempts. The delivery state
// lives in the request's row (notifyStatus, notifyRetryTimes, next attempt time), so a restart
// resumes where it stopped: at-least-once delivery, deduplicated by the receiver on `webhook-id`.
// Several API nodes may run a notifier each over one shared queue: each due delivery is claimed
// by one of them (LegacyRequestStore.claimDueNotifications), which holds it for claimLeaseMs, so
// one node attempts it at a time and another resumes it, retry count kept, if that node dies.

import { randomUUID } from "node:crypto";
import { signWebhook } from "../contract/signing/webhook-signature.js";
import { type LegacyRequestRecord, type LegacyRequestStore, notifyStatuses } from "../store/legacy.js";
import { transactionResult } from "./request-results.js";

export interface NotifierPolicy {
  /** Attempts in all, the first included; after the last failure notifyStatus becomes failed. */
  readonly attemptsMax: number;
  /** Wait after the first failure; doubles after each one, up to delayMsMax. */
  readonly delayMsBase: number;
  readonly delayMsMax: number;
  /** One attempt may take this long before it counts as failed. */
  readonly attemptTimeoutMs: number;
  /** How often due deliveries are looked for (a completed request also wakes the notifier). */
  readonly pollIntervalMs: number;
  /** Deliveries in flight at once, across merchants. */
  readonly deliveriesInFlightMax: number;
  /**
   * A claimed delivery is this notifier's alone for this long (well over attemptTimeoutMs); a
   * node that dies mid-delivery delays that delivery by this much at most.
   */
  readonly claimLeaseMs: number;
}

export const defaultNotifierPolicy: NotifierPolicy = {
  attemptsMax: 8,
  delayMsBase: 1_000,
  delayMsMax: 5 * 60_000,
  attemptTimeoutMs: 10_000,
  pollIntervalMs: 1_000,
  deliveriesInFlightMax: 16,
  claimLeaseMs: 60_000,
};

export interface WebhookTarget {
  readonly url: string;
  readonly secret: string;
}

export interface NotifierOptions {
  readonly store: LegacyRequestStore;
  /** The merchant's webhook, or undefined when it has none. */
  readonly webhookOf: (merchantId: number) => Promise<WebhookTarget | undefined>;
  readonly nowMs: () => number;
  readonly policy?: Partial<NotifierPolicy>;
  readonly fetch?: typeof fetch;
  readonly onError: (error: unknown) => void;
  /** This notifier's name in claims; a random one by default (unique per process). */
  readonly claimant?: string;
}

/** Wait before the attempt after `failures` failed ones: base × 2^(failures − 1), capped. */
export function retryDelayMs(policy: NotifierPolicy, failures: number): number {
  return Math.min(policy.delayMsMax, policy.delayMsBase * 2 ** Math.max(0, failures - 1));
}

export class LegacyNotifier {
  /** Webhook attempts made and those that failed (no 2xx in time), for the metrics. */
  readonly stats = { attempts: 0, failures: 0 };
  readonly claimant: string;
  readonly #options: NotifierOptions;
  readonly #policy: NotifierPolicy;
  readonly #fetch: typeof fetch;
  readonly #inFlight = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #polling: Promise<void> | undefined;

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#policy = { ...defaultNotifierPolicy, ...options.policy };
    this.#fetch = options.fetch ?? fetch;
    this.claimant = options.claimant ?? `notifier-${randomUUID()}`;
  }

  start(): void {
    this.#running = true;
    this.#timer = setInterval(() => this.wake(), this.#policy.pollIntervalMs);
    this.#timer.unref();
    this.wake();
  }

  /** Looks for due deliveries now. */
  wake(): void {
    if (!this.#running || this.#polling !== undefined) return;
    this.#polling = this.#poll()
      .catch((error) => this.#options.onError(error))
      .finally(() => {
        this.#polling = undefined;
      });
  }

  /** Stops polling and waits for the deliveries in flight; due ones are resumed on the next start. */
  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#timer);
    await this.#polling;
    await Promise.allSettled(this.#inFlight.values());
  }

  async #poll(): Promise<void> {
    const free = this.#policy.deliveriesInFlightMax - this.#inFlight.size;
    if (free <= 0) return;
    const due = await this.#options.store.claimDueNotifications({
      claimant: this.claimant,
      limit: free,
      nowMs: this.#options.nowMs(),
      leaseMs: this.#policy.claimLeaseMs,
    });
    for (const record of due) {
      if (this.#inFlight.size >= this.#policy.deliveriesInFlightMax) break;
      if (this.#inFlight.has(record.requestId)) continue;
      const delivery = this.#deliver(record)
        .catch((error) => this.#options.onError(error))
        .finally(() => this.#inFlight.delete(record.requestId));
      this.#inFlight.set(record.requestId, delivery);
    }
  }

  async #deliver(record: LegacyRequestRecord): Promise<void> {
    const { store, nowMs } = this.#options;
    const { claimant } = this;
    const target = await this.#options.webhookOf(record.merchantId);
    if (target === undefined) {
      await store.recordNotifyAttempt(
        {
          requestId: record.requestId,
          notifyStatus: notifyStatuses.noWebhook,
          notifyRetryTimes: 0,
          nextNotifyAtMs: null,
        },
        nowMs(),
        claimant,
      );
      return;
    }
    const delivered = await this.#attempt(record, target);
    this.stats.attempts += 1;
    if (!delivered) this.stats.failures += 1;
    if (delivered) {
      await store.recordNotifyAttempt(
        {
          requestId: record.requestId,
          notifyStatus: notifyStatuses.delivered,
          notifyRetryTimes: record.notifyRetryTimes,
          nextNotifyAtMs: null,
        },
        nowMs(),
        claimant,
      );
      return;
    }
    const failures = record.notifyRetryTimes + 1;
    const exhausted = failures >= this.#policy.attemptsMax;
    const now = nowMs();
    await store.recordNotifyAttempt(
      {
        requestId: record.requestId,
        notifyStatus: exhausted ? notifyStatuses.failed : notifyStatuses.pending,
        notifyRetryTimes: failures,
        nextNotifyAtMs: exhausted ? null : now + retryDelayMs(this.#policy, failures),
      },
      now,
      claimant,
    );
  }

  async #attempt(record: LegacyRequestRecord, target: WebhookTarget): Promise<boolean> {
    const nowMs = this.#options.nowMs();
    const body = JSON.stringify({
      type: "request.result",
      timestamp: new Date(nowMs).toISOString(),
      data: transactionResult(record),
    });
    // The id stays the same across retries, so the merchant can drop a duplicate delivery.
    const headers = signWebhook(target.secret, `msg_${record.requestId}`, Math.floor(nowMs / 1000), body);
    try {
      const response = await this.#fetch(target.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "predex-webhooks/1", ...headers },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(this.#policy.attemptTimeoutMs),
      });
      // The body is not needed; reading it frees the connection.
      await response.arrayBuffer().catch(() => undefined);
      return response.status >= 200 && response.status < 300;
    } catch {
      return false;
    }
  }
}
