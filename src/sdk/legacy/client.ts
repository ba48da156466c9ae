// A typed client for the legacy listener (spec 001): signs the authorize call with the merchant's
// RSA key, keeps the JWT and authorizes again when it is refused (401), and follows spec 001's
// retry policy: 429 after `retryAfter`, 500/503 with exponential backoff, 3 attempts at most.
// An order submit is never retried when its fate is unknown (a 5xx or no answer, including 503
// `request timed out`): only a 429, a 401 or a 503 `service temporarily unavailable`, which the
// server gives when nothing was queued, or a connection never made, sends it again.

import type { KeyObject } from "node:crypto";
import type { Static } from "typebox";
import type { MarketApplication, MarketApplicationRequest } from "../../contract/legacy/applications.js";
import type { Authorized, AuthorizeRequest } from "../../contract/legacy/authorize.js";
import type { BillDetailLine, MonthlyStatement } from "../../contract/legacy/bills.js";
import type {
  Category,
  LegacyMarketDetail,
  LegacyMarketRecord,
  TopHolders,
} from "../../contract/legacy/catalogue.js";
import type { Notification } from "../../contract/legacy/notifications.js";
import type { OrderSubmitRequest, TransactionResult } from "../../contract/legacy/orders.js";
import { legacyPaths } from "../../contract/legacy/paths.js";
import type { ActivityRecord, PositionRecord } from "../../contract/legacy/portfolio.js";
import { LegacyApiError, LegacyNetworkError, SubmitOutcomeUnknownError } from "./errors.js";
import { signAuthorizeRequest } from "./signer.js";

export interface LegacyRetryPolicy {
  /** Attempts in all, the first included (spec 001: at most 3). */
  readonly attemptsMax: number;
  /** Backoff after a 500/503 or a network failure: base × 2^(attempt − 1), capped. */
  readonly delayMsBase: number;
  readonly delayMsMax: number;
}

export const defaultLegacyRetryPolicy: LegacyRetryPolicy = {
  attemptsMax: 3,
  delayMsBase: 500,
  delayMsMax: 4_000,
};

export interface LegacyClientOptions {
  /** The legacy listener, e.g. `http://127.0.0.1:8082`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The merchant's RSA private key, PKCS#8 (PEM or KeyObject); never sent. */
  readonly privateKey: string | KeyObject;
  /** The user this client acts for; sent by authorize. */
  readonly user: AuthorizeRequest;
  readonly retry?: LegacyRetryPolicy;
  readonly timeoutMs?: number;
  /** The signing clock in milliseconds; tests use it to show what clock skew does. */
  readonly nowMs?: () => number;
  /** The nonce of each authorize call; random by default. */
  readonly nonce?: () => string;
  readonly fetch?: typeof fetch;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface LegacyEnvelope<Data> {
  readonly code: number;
  readonly msg: string;
  readonly data: Data;
  readonly [besideData: string]: unknown;
}

/** A page of a paginated read: the items of `data` and the counts beside it. */
export interface LegacyPage<Item> {
  readonly records: Item[];
  readonly current: number;
  readonly size: number;
  readonly total: number;
  readonly pages: number;
  readonly totalRow: number;
  readonly empty: boolean;
}

export interface PageQuery {
  readonly marketId?: number;
  readonly page?: number;
  readonly pageSize?: number;
}

export interface MarketListQuery {
  readonly page?: number;
  readonly pageSize?: number;
  readonly categoryId?: number;
  /** open, closed, resolving, settled or void. */
  readonly status?: string;
  readonly keyword?: string;
}

/** Reads that also work without a JWT: `anonymous` sends none. */
export interface ReadOptions {
  readonly anonymous?: boolean;
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

interface SendOptions {
  readonly body?: unknown;
  /** false: a 5xx or a network failure is not retried (the request may have taken effect). */
  readonly idempotent: boolean;
  readonly authenticated: boolean;
  /** No credentials at all (the category list; the list, outcome and top holders without a JWT). */
  readonly anonymous?: boolean;
}

export class LegacyClient {
  readonly #options: LegacyClientOptions;
  readonly #retry: LegacyRetryPolicy;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;
  #token: string | undefined;
  #userId: number | undefined;
  #renewal: Promise<void> | undefined;

  constructor(options: LegacyClientOptions) {
    this.#options = options;
    this.#retry = options.retry ?? defaultLegacyRetryPolicy;
    this.#fetch = options.fetch ?? fetch;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  get token(): string | undefined {
    return this.#token;
  }

  /** Replaces the token (tests use it to present an expired or forged one). */
  set token(token: string | undefined) {
    this.#token = token;
  }

  get userId(): number | undefined {
    return this.#userId;
  }

  /** Signs and sends the authorize call; later calls carry the JWT it returns. */
  async authorize(): Promise<Authorized> {
    const envelope = await this.#withRetries<Authorized>("POST", legacyPaths.authorize, {
      body: this.#options.user,
      idempotent: true,
      authenticated: false,
    });
    this.#token = envelope.data.token;
    this.#userId = envelope.data.userId;
    return envelope.data;
  }

  /** Queues an order; returns its fgRequestId. Read the result before ever submitting it again. */
  async submitOrder(order: OrderSubmitRequest): Promise<string> {
    const envelope = await this.requestEnvelope<{ fgRequestId: string }>("POST", legacyPaths.orderSubmit, {
      body: order,
      idempotent: false,
    });
    return envelope.data.fgRequestId;
  }

  async getRequestResult(fgRequestId: string): Promise<TransactionResult> {
    return (await this.requestEnvelope<TransactionResult>("GET", legacyPaths.requestResult(fgRequestId)))
      .data;
  }

  /** Claims every claimable position of the user in a settled or void market. */
  async claim(marketId: number): Promise<{ claimedAmount: number; transactionId: string }> {
    const envelope = await this.requestEnvelope<{ claimedAmount: number; transactionId: string }>(
      "POST",
      legacyPaths.claim,
      // A claim is refused once done (4025), so sending it again after a lost answer is harmless.
      { body: { marketId }, idempotent: true },
    );
    return envelope.data;
  }

  async getPositions(query: PageQuery = {}): Promise<LegacyPage<Static<typeof PositionRecord>>> {
    return pageOf(
      await this.requestEnvelope<Static<typeof PositionRecord>[]>("POST", legacyPaths.positions, {
        body: query,
        idempotent: true,
      }),
    );
  }

  async getUserActivity(query: PageQuery = {}): Promise<LegacyPage<Static<typeof ActivityRecord>>> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) search.set(name, String(value));
    const path = search.size === 0 ? legacyPaths.userActivity : `${legacyPaths.userActivity}?${search}`;
    return pageOf(await this.requestEnvelope<Static<typeof ActivityRecord>[]>("GET", path));
  }

  /** Every category a market may be filed under (no credentials). */
  async getCategories(): Promise<Static<typeof Category>[]> {
    return (await this.#publicEnvelope<Static<typeof Category>[]>(legacyPaths.category)).data;
  }

  async getMarketList(
    query: MarketListQuery = {},
    options: ReadOptions = {},
  ): Promise<LegacyPage<Static<typeof LegacyMarketRecord>>> {
    const path = withQuery(legacyPaths.marketList, query);
    return pageOf(await this.#read<Static<typeof LegacyMarketRecord>[]>(path, options));
  }

  async getMarketOutcome(
    marketId: number,
    options: ReadOptions = {},
  ): Promise<Static<typeof LegacyMarketDetail>> {
    return (await this.#read<Static<typeof LegacyMarketDetail>>(legacyPaths.marketOutcome(marketId), options))
      .data;
  }

  async getTopHolders(marketId: number, options: ReadOptions = {}): Promise<Static<typeof TopHolders>> {
    const path = withQuery(legacyPaths.topHolders, { marketId });
    return (await this.#read<Static<typeof TopHolders>>(path, options)).data;
  }

  /** The user's notifications, newest first; `userId` defaults to the authorized user. */
  async getNotifications(
    query: { userId?: number; page?: number; pageSize?: number } = {},
  ): Promise<LegacyPage<Static<typeof Notification>>> {
    if (this.#token === undefined) await this.#renewToken();
    const path = withQuery(legacyPaths.notificationList, { userId: this.#userId, ...query });
    return pageOf(await this.requestEnvelope<Static<typeof Notification>[]>("GET", path));
  }

  /** The merchant's commission statement of a month (`billPeriod` YYYYMM as a number). */
  async getMonthlyBill(request: {
    billPeriod: number;
    merchantId: number;
    page?: number;
    pageSize?: number;
  }): Promise<LegacyPage<Static<typeof MonthlyStatement>>> {
    return pageOf(
      await this.requestEnvelope<Static<typeof MonthlyStatement>[]>("POST", legacyPaths.monthlyBill, {
        body: request,
        idempotent: true,
      }),
    );
  }

  async getBillDetail(query: {
    merchantId: number;
    merchantUserId: string;
    page?: number;
    pageSize?: number;
  }): Promise<LegacyPage<Static<typeof BillDetailLine>>> {
    const path = withQuery(legacyPaths.billDetail, query);
    return pageOf(await this.requestEnvelope<Static<typeof BillDetailLine>[]>("GET", path));
  }

  /** Applies for a market (creators only); the operator reviews it. Not retried when its fate is unknown. */
  async applyForMarket(
    application: Static<typeof MarketApplicationRequest>,
  ): Promise<Static<typeof MarketApplication>> {
    return (
      await this.requestEnvelope<Static<typeof MarketApplication>>("POST", legacyPaths.marketApply, {
        body: application,
        idempotent: false,
      })
    ).data;
  }

  /** Challenges a resolving market's proposed result, posting the bond; resolves to null (spec 001 rule 5). */
  async challenge(request: { marketId: number; reason: string }): Promise<null> {
    // Safe to resend: a market takes one challenge, so a repeat is refused (4014), never charged twice.
    return (
      await this.requestEnvelope<null>("POST", legacyPaths.challenge, { body: request, idempotent: true })
    ).data;
  }

  async #read<Data>(path: string, options: ReadOptions): Promise<LegacyEnvelope<Data>> {
    return options.anonymous === true
      ? this.#publicEnvelope<Data>(path)
      : this.requestEnvelope<Data>("GET", path);
  }

  async #publicEnvelope<Data>(path: string): Promise<LegacyEnvelope<Data>> {
    return this.#withRetries<Data>("GET", path, { idempotent: true, authenticated: false, anonymous: true });
  }

  /** Polls the result until it is SUCCESS or FAILED. */
  async waitForResult(fgRequestId: string, options: WaitOptions = {}): Promise<TransactionResult> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    for (;;) {
      const result = await this.getRequestResult(fgRequestId);
      if (result.status !== "PENDING") return result;
      if (Date.now() >= deadline) return result;
      await this.#sleep(options.intervalMs ?? 50);
    }
  }

  /**
   * Any JWT operation of the legacy listener; resolves to the whole envelope (paginated reads put
   * `current`, `size`, `total`, … beside `data`). Authorizes first when there is no token yet.
   */
  async requestEnvelope<Data>(
    method: string,
    path: string,
    options: { body?: unknown; idempotent?: boolean } = {},
  ): Promise<LegacyEnvelope<Data>> {
    const send: SendOptions = {
      ...(options.body === undefined ? {} : { body: options.body }),
      idempotent: options.idempotent ?? method === "GET",
      authenticated: true,
    };
    if (this.#token === undefined) await this.#renewToken();
    try {
      return await this.#withRetries<Data>(method, path, send);
    } catch (error) {
      // An expired or refused token: authorize again (once for all requests that failed together).
      if (error instanceof LegacyApiError && error.status === 401) {
        await this.#renewToken();
        return this.#withRetries<Data>(method, path, send);
      }
      throw error;
    }
  }

  async #renewToken(): Promise<void> {
    if (this.#renewal === undefined) {
      const failedToken = this.#token;
      this.#renewal = (async () => {
        if (this.#token === failedToken) await this.authorize();
      })().finally(() => {
        this.#renewal = undefined;
      });
    }
    return this.#renewal;
  }

  async #withRetries<Data>(
    method: string,
    path: string,
    options: SendOptions,
  ): Promise<LegacyEnvelope<Data>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#send<Data>(method, path, options);
      } catch (error) {
        const last = attempt >= this.#retry.attemptsMax;
        if (error instanceof LegacyApiError && error.status === 429) {
          // Refused before anything was done: safe to send again, also for a submit.
          if (last) throw error;
          await this.#sleep((error.retryAfterSeconds ?? 1) * 1000);
          continue;
        }
        const retryable =
          error instanceof LegacyNetworkError || (error instanceof LegacyApiError && error.retryable);
        const nothingWasDone =
          (error instanceof LegacyNetworkError || error instanceof LegacyApiError) && error.nothingWasDone;
        const unknownOutcome = retryable && !nothingWasDone;
        if (unknownOutcome && !options.idempotent) throw new SubmitOutcomeUnknownError(error);
        if (!retryable || last) throw error;
        await this.#sleep(Math.min(this.#retry.delayMsMax, this.#retry.delayMsBase * 2 ** (attempt - 1)));
      }
    }
  }

  async #send<Data>(method: string, path: string, options: SendOptions): Promise<LegacyEnvelope<Data>> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = {};
    if (options.anonymous === true) {
      if (body !== undefined) headers["content-type"] = "application/json";
    } else if (options.authenticated) {
      if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
      if (body !== undefined) headers["content-type"] = "application/json";
    } else {
      const signed = signAuthorizeRequest({
        apiKey: this.#options.apiKey,
        privateKey: this.#options.privateKey,
        method,
        pathAndQuery: path,
        body: body ?? "",
        ...(this.#options.nowMs === undefined ? {} : { timestampMs: this.#options.nowMs() }),
        ...(this.#options.nonce === undefined ? {} : { nonce: this.#options.nonce() }),
      });
      Object.assign(headers, signed.headers);
    }
    let response: Response;
    try {
      response = await this.#fetch(new URL(path, this.#options.baseUrl), {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new LegacyNetworkError(`${method} ${path}: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.text();
    let envelope: LegacyEnvelope<Data> | undefined;
    try {
      envelope = JSON.parse(text) as LegacyEnvelope<Data>;
    } catch {
      envelope = undefined;
    }
    if (response.status === 200 && envelope !== undefined && envelope.code === 200) return envelope;
    throw new LegacyApiError(
      response.status,
      envelope?.code ?? response.status,
      envelope?.msg ?? text.slice(0, 200),
      (envelope?.data as Record<string, unknown> | null | undefined) ?? null,
    );
  }
}

function withQuery(path: string, query: object): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query) as [string, unknown][])
    if (value !== undefined) search.set(name, String(value));
  return search.size === 0 ? path : `${path}?${search}`;
}

function pageOf<Item>(envelope: LegacyEnvelope<Item[]>): LegacyPage<Item> {
  return {
    records: envelope.data,
    current: envelope.current as number,
    size: envelope.size as number,
    total: envelope.total as number,
    pages: envelope.pages as number,
    totalRow: envelope.totalRow as number,
    empty: envelope.empty as boolean,
  };
}
