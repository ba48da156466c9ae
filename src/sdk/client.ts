// A typed REST client for the signed host: signs every request, keeps the session cookie from
// registration, registers again and retries once when the session is gone, and retries with capped
// exponential backoff (spec 000 "Recovery"): any request the server says nothing was done for
// (502/2002, a refused connection); reads, and mutations that carry their own idempotency key (a
// create-order's clientOrderId, which the client always sends), also after an unknown outcome
// (504/2001, 500, a lost answer). Any other mutation's unknown outcome is thrown to the caller, to
// reconcile before trying again.

import { randomUUID } from "node:crypto";
import type {
  CategoryNode,
  LiveVolume,
  MarketHolders,
  MarketListPage,
  MarketListRecord,
} from "../contract/partner/catalogue.js";
import type { Claim, ClaimAllResult, PositionRecord } from "../contract/partner/claims.js";
import type { ConvertRequest, ConvertResult } from "../contract/partner/convert.js";
import type { MarketDetail } from "../contract/partner/market-detail.js";
import type {
  AmendOrderRequest,
  CancelAllRequest,
  CancelAllResult,
  CancelOrdersResult,
  CreateOrdersResult,
  HeartbeatResult,
} from "../contract/partner/market-making.js";
import type {
  CodeProofRequest,
  EmailCodeSent,
  MfaStatus,
  MfaTicket,
  RecoveryCodes,
  TotpDisabled,
  TotpEnabled,
  TotpSetup,
  VerifyRequest,
} from "../contract/partner/mfa.js";
import type {
  Asset,
  BestPrice,
  Book,
  CreateOrderRequest,
  Order,
  Trade,
} from "../contract/partner/trading.js";
import type { PublicUser, RegisteredUser, RegisterRequest, UserProfile } from "../contract/partner/users.js";
import type {
  AccountHistory,
  DepositAddress,
  DepositHistory,
  WithdrawApplyRequest,
  Withdrawal,
  WithdrawHistory,
} from "../contract/partner/wallet.js";
import { restPaths } from "../contract/paths.js";
import { apiErrorClass, GatewayError, NetworkError, PredexApiError } from "./errors.js";
import { type GatewayCredentials, type QueryParams, signRequest } from "./signer.js";

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attemptsMax: number;
  readonly delayMsBase: number;
  readonly delayMsMax: number;
}

export const defaultRetryPolicy: RetryPolicy = { attemptsMax: 3, delayMsBase: 200, delayMsMax: 2_000 };

export interface PredexClientOptions {
  /** The signed host, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  readonly retry?: RetryPolicy;
  /**
   * Sign a fresh `x-ca-nonce` into every request (default true), so that a captured request cannot
   * be replayed; false signs none (a partner the operator requires nonces of is then refused).
   */
  readonly nonces?: boolean;
  /** One attempt's timeout (default defaultTimeoutMs, 30 s). */
  readonly timeoutMs?: number;
  /** The signing clock; tests use it to show what clock skew does. */
  readonly now?: () => Date;
  readonly fetch?: typeof fetch;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The whole JSON envelope, for operations that put pagination beside `data`. */
export interface ApiEnvelope<Data> {
  readonly code: number;
  readonly message: string;
  readonly data: Data;
  readonly [besideData: string]: unknown;
}

export interface RequestOptions {
  readonly query?: QueryParams;
  /** Serialized once; the signed MD5 and the sent body are the same bytes. */
  readonly body?: unknown;
  /** Extra headers sent unsigned (e.g. `accept-language`); the signed ones cannot be overridden. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The request carries its own idempotency key (a create-order's clientOrderId), so sending it
   * again after an unknown outcome cannot do it twice: it is retried as a read is.
   */
  readonly idempotent?: boolean;
}

/** How long one attempt waits for its answer: longer than a server holds a command (20 s) across a takeover. */
export const defaultTimeoutMs = 30_000;

const sessionCookieName = "predex_session";
const idempotentMethods: ReadonlySet<string> = new Set(["GET", "HEAD"]);

export class PredexClient {
  readonly #options: PredexClientOptions;
  readonly #retry: RetryPolicy;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;
  #sessionCookie: string | undefined;
  #registration: RegisterRequest | undefined;
  #renewal: Promise<void> | undefined;

  constructor(options: PredexClientOptions) {
    this.#options = options;
    this.#retry = options.retry ?? defaultRetryPolicy;
    this.#fetch = options.fetch ?? fetch;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** The Cookie header value of the current session (`predex_session=…`), if any. */
  get sessionCookie(): string | undefined {
    return this.#sessionCookie;
  }

  set sessionCookie(cookie: string | undefined) {
    this.#sessionCookie = cookie;
  }

  /** Registers the user (or finds it again) and keeps the session; later calls act as this user. */
  async register(request: RegisterRequest): Promise<RegisteredUser> {
    const envelope = await this.#send<RegisteredUser>(
      "POST",
      restPaths.userRegister,
      { body: request },
      false,
    );
    this.#registration = request;
    return envelope.data;
  }

  async getProfile(): Promise<UserProfile> {
    return this.request<UserProfile>("GET", restPaths.userProfile);
  }

  async getUser(userId: string): Promise<PublicUser> {
    return this.request<PublicUser>("GET", restPaths.user(userId));
  }

  async getMfaStatus(): Promise<MfaStatus> {
    return this.request<MfaStatus>("GET", restPaths.mfaStatus);
  }

  /** Starts TOTP enrolment: the secret and otpauth URI to show the user once. */
  async setupTotp(): Promise<TotpSetup> {
    return this.request<TotpSetup>("POST", restPaths.mfaTotpSetup);
  }

  /** Confirms the setup with a code from the authenticator; returns the first recovery codes. */
  async enableTotp(code: string): Promise<TotpEnabled> {
    return this.request<TotpEnabled>("POST", restPaths.mfaTotpEnable, { body: { code } });
  }

  async disableTotp(proof: CodeProofRequest): Promise<TotpDisabled> {
    return this.request<TotpDisabled>("POST", restPaths.mfaTotpDisable, { body: proof });
  }

  async sendMfaEmailCode(): Promise<EmailCodeSent> {
    return this.request<EmailCodeSent>("POST", restPaths.mfaEmailSend);
  }

  /** Checks a code and returns a single-use ticket (send it as `mfaTicket` to the sensitive operation). */
  async verifyMfa(request: VerifyRequest): Promise<MfaTicket> {
    return this.request<MfaTicket>("POST", restPaths.mfaVerify, { body: request });
  }

  async regenerateRecoveryCodes(proof: CodeProofRequest): Promise<RecoveryCodes> {
    return this.request<RecoveryCodes>("POST", restPaths.mfaRecoveryCodes, { body: proof });
  }

  async getMarketDetail(marketId: string): Promise<MarketDetail> {
    return this.request<MarketDetail>("GET", restPaths.marketDetail(marketId));
  }

  /** Listed markets, hottest first; the pagination fields are inside `data`. */
  async listMarkets(query: MarketListRequest = {}): Promise<MarketListPage> {
    return this.request<MarketListPage>("GET", restPaths.marketsList, { query: stringQuery(query) });
  }

  /**
   * The category tree. Without `language`, the server picks from `acceptLanguage` (an
   * Accept-Language header value), else en-US.
   */
  async getCategoryTree(query: CategoryTreeRequest = {}): Promise<CategoryNode[]> {
    const { acceptLanguage, ...rest } = query;
    return this.request<CategoryNode[]>("GET", restPaths.categoryTree, {
      query: stringQuery(rest),
      ...(acceptLanguage === undefined ? {} : { headers: { "accept-language": acceptLanguage } }),
    });
  }

  async getMarketHolders(marketId: string): Promise<MarketHolders> {
    return this.request<MarketHolders>("GET", restPaths.marketHolders(marketId));
  }

  async getLiveVolume(marketId: string): Promise<LiveVolume> {
    return this.request<LiveVolume>("GET", restPaths.marketLiveVolume(marketId));
  }

  /** Markets matching `keyword`, best first; `current`, `size`, `total`, `pages` come beside `data`. */
  async search(query: SearchRequest): Promise<PagedResult<MarketListRecord>> {
    return pagedResult(
      await this.requestEnvelope<MarketListRecord[]>("GET", restPaths.search, { query: stringQuery(query) }),
    );
  }

  /** The book of one outcome; `optionId` of the No option shows it in No prices. */
  async getBook(query: BookRequest): Promise<Book> {
    return this.request<Book>("GET", restPaths.orderbookBook, { query: bookQuery(query) });
  }

  async getPrice(query: BookRequest): Promise<BestPrice> {
    return this.request<BestPrice>("GET", restPaths.orderbookPrice, { query: bookQuery(query) });
  }

  /**
   * Places an order, exactly once: without a `clientOrderId` the client gives it a fresh one (a
   * UUID), and the same id again within 24 hours returns the first order, never a second one. So an
   * unknown outcome (504/2001, 500, a lost answer) is retried like a read; when the retries run out
   * the error is thrown, and calling again with the same `clientOrderId` is still safe.
   */
  async createOrder(order: CreateOrderRequest): Promise<Order> {
    return this.request<Order>("POST", restPaths.createOrder, {
      body: withClientOrderId(order),
      idempotent: true,
    });
  }

  /** Unfilled orders, newest first; `current`, `size`, `total`, `pages` come beside `data`. */
  async getOpenOrders(request: OpenOrdersQuery = {}): Promise<PagedResult<Order>> {
    return pagedResult(await this.requestEnvelope<Order[]>("POST", restPaths.openOrders, { body: request }));
  }

  async cancelOrder(orderId: string): Promise<Order> {
    return this.request<Order>("POST", restPaths.cancelOrder, { body: { orderId } });
  }

  /**
   * Places 1 to 20 orders in one call and one engine batch; each is answered as createOrder would
   * answer it, in order (`{ok: true, order}` or `{ok: false, code, message}`). Exactly once, as
   * createOrder: every item without a `clientOrderId` gets a fresh one, so an unknown outcome is
   * resent unchanged and the items already placed come back as the first orders, never twice.
   */
  async createOrders(orders: readonly CreateOrderRequest[]): Promise<CreateOrdersResult> {
    const body = { orders: orders.map(withClientOrderId) };
    return this.request<CreateOrdersResult>("POST", restPaths.createOrders, { body, idempotent: true });
  }

  /**
   * Cancels 1 to 1,000 of the user's orders; answers which were cancelled and, for the others, what
   * cancel-order would have answered. Safe to call again after a lost answer.
   */
  async cancelOrders(orderIds: readonly string[]): Promise<CancelOrdersResult> {
    return this.request<CancelOrdersResult>("POST", restPaths.cancelOrders, { body: { orderIds } });
  }

  /**
   * Changes an open order's total size (`shares`) and/or price (`limitPrice`); answers the order
   * after the change. Fewer shares at the same price keep its place in the queue; anything else
   * sends it to the back of its level (it may trade at once unless it is post-only).
   */
  async amendOrder(amend: AmendOrderRequest): Promise<Order> {
    return this.request<Order>("POST", restPaths.amendOrder, { body: amend });
  }

  /**
   * The dead-man's switch: 5 to 300 arms (or re-arms) it for that many seconds, 0 disarms it. Keep
   * calling well within the timeout; if none arrives in time, every open order of the user is
   * cancelled. Safe to send again after a lost answer: a second heartbeat only re-arms.
   */
  async heartbeat(timeoutSeconds: number): Promise<HeartbeatResult> {
    return this.request<HeartbeatResult>("POST", restPaths.heartbeat, { body: { timeoutSeconds } });
  }

  /** Cancels every open order of the user, or those in one market (`marketId`) or book (`outcomeId` too). */
  async cancelAll(scope: CancelAllRequest = {}): Promise<CancelAllResult> {
    return this.request<CancelAllResult>("POST", restPaths.cancelAll, { body: scope });
  }

  /** The session user's trades, newest first. */
  async getTrades(request: TradesQuery = {}): Promise<PagedResult<Trade>> {
    const query: Record<string, string> = {};
    if (request.marketId !== undefined) query.marketId = request.marketId;
    if (request.page !== undefined) query.page = String(request.page);
    if (request.pageSize !== undefined) query.pageSize = String(request.pageSize);
    return pagedResult(await this.requestEnvelope<Trade[]>("GET", restPaths.trades, { query }));
  }

  async getAssets(): Promise<Asset[]> {
    return this.request<Asset[]>("GET", restPaths.accountAssets);
  }

  /** Every movement of the user's USDT, newest first; the page fields are inside `data`. */
  async getAccountHistory(query: AccountHistoryRequest = {}): Promise<AccountHistory> {
    return this.request<AccountHistory>("GET", restPaths.accountHistory, { query: stringQuery(query) });
  }

  /** The user's ERC20 deposit address; the same every time. */
  async getDepositAddress(): Promise<DepositAddress> {
    return this.request<DepositAddress>("GET", restPaths.depositAddress);
  }

  /** Credited deposits, newest first: `count` and `records` inside `data`. */
  async getDepositHistory(query: WalletHistoryRequest = {}): Promise<DepositHistory> {
    return this.request<DepositHistory>("GET", restPaths.depositHistory, { query: stringQuery(query) });
  }

  /**
   * Asks for a withdrawal; amount + the fee are frozen. Not retried automatically (it is not
   * idempotent): after a network failure, read the withdraw history before asking again.
   */
  async applyWithdrawal(request: WithdrawApplyRequest): Promise<Withdrawal> {
    return this.request<Withdrawal>("POST", restPaths.withdrawApply, { body: request });
  }

  /** Takes back a pending withdrawal. */
  async cancelWithdrawal(withdrawId: string): Promise<Withdrawal> {
    return this.request<Withdrawal>("POST", restPaths.withdrawCancel, { body: { withdrawId } });
  }

  /** Withdrawals in every status, newest first: `count` and `records` inside `data`. */
  async getWithdrawHistory(query: WalletHistoryRequest = {}): Promise<WithdrawHistory> {
    return this.request<WithdrawHistory>("GET", restPaths.withdrawHistory, { query: stringQuery(query) });
  }

  /** The session user's positions; the pagination fields are inside `data`. */
  async getPositions(query: PositionsQuery = {}): Promise<PositionsPage> {
    return this.request<PositionsPage>("GET", restPaths.accountPositions, { query: stringQuery(query) });
  }

  /** Claims one position of a settled or void market into the available balance. */
  async claim(positionId: string): Promise<Claim> {
    return this.request<Claim>("POST", restPaths.claim, { body: { positionId } });
  }

  /** Claims several positions; each result has its amount or its error. */
  async claimAll(positionIdList: readonly string[]): Promise<ClaimAllResult> {
    return this.request<ClaimAllResult>("POST", restPaths.claimAll, { body: { positionIdList } });
  }

  /**
   * In an exclusive market, turns `shares` No of each listed outcome into `shares` Yes of every other
   * outcome plus shares × (listed − 1) USDT; the payout is the same whichever outcome wins. Not
   * retried automatically (not idempotent): after a network failure, read the positions first.
   */
  async convert(request: ConvertRequest): Promise<ConvertResult> {
    return this.request<ConvertResult>("POST", restPaths.convert, { body: request });
  }

  /** Any operation of the signed host; resolves to `data`. */
  async request<Data>(method: string, path: string, options: RequestOptions = {}): Promise<Data> {
    return (await this.requestEnvelope<Data>(method, path, options)).data;
  }

  async requestEnvelope<Data>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiEnvelope<Data>> {
    const cookieSent = this.#sessionCookie;
    try {
      return await this.#send<Data>(method, path, options, true);
    } catch (error) {
      if (!(error instanceof PredexApiError) || !error.isSessionError || this.#registration === undefined)
        throw error;
      // The spec's recovery for a dead session: register again, take the new cookie, retry once.
      await this.#renewSession(this.#registration, cookieSent);
      return this.#send<Data>(method, path, options, true);
    }
  }

  async #send<Data>(
    method: string,
    path: string,
    options: RequestOptions,
    withSession: boolean,
  ): Promise<ApiEnvelope<Data>> {
    const upperMethod = method.toUpperCase();
    const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body), "utf8");
    const idempotent = idempotentMethods.has(upperMethod) || options.idempotent === true;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#attempt<Data>(
          upperMethod,
          path,
          options.query,
          body,
          withSession,
          options.headers,
        );
      } catch (error) {
        // Any method may be sent again when nothing was done (502/2002, a connection never made);
        // other retryable failures, whose outcome is unknown, only for idempotent requests (the
        // spec's recovery table: reconcile before retrying a mutation).
        const nothingWasDone =
          (error instanceof PredexApiError || error instanceof NetworkError) && error.nothingWasDone;
        const retryable =
          nothingWasDone ||
          (idempotent &&
            (error instanceof PredexApiError || error instanceof NetworkError) &&
            error.retryable);
        if (!retryable || attempt >= this.#retry.attemptsMax) throw error;
        const retryAfterMs = error instanceof PredexApiError ? (error.retryAfterMs ?? 0) : 0;
        // Retry-After is honoured up to the policy's ceiling, so a client is never parked for long.
        await this.#sleep(Math.max(this.#backoffMs(attempt), Math.min(retryAfterMs, this.#retry.delayMsMax)));
      }
    }
  }

  async #attempt<Data>(
    method: string,
    path: string,
    query: QueryParams | undefined,
    body: Buffer | undefined,
    withSession: boolean,
    extraHeaders: Readonly<Record<string, string>> | undefined,
  ): Promise<ApiEnvelope<Data>> {
    const cookie = withSession ? this.#sessionCookie : undefined;
    // Signed per attempt: the date moves on and a nonce must never be sent twice.
    const signed = signRequest(this.#options.credentials, {
      method,
      path,
      ...(query === undefined ? {} : { query }),
      ...(body === undefined ? {} : { body }),
      ...(cookie === undefined ? {} : { cookie }),
      nonce: this.#options.nonces === false ? false : randomUUID(),
      date: this.#options.now?.() ?? new Date(),
    });
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(new URL(signed.pathAndQuery, this.#options.baseUrl), {
        method,
        headers: extraHeaders === undefined ? signed.headers : { ...extraHeaders, ...signed.headers },
        ...(body === undefined ? {} : { body: new Uint8Array(body) }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? defaultTimeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new NetworkError(`${method} ${path} failed: ${(error as Error).message}`, { cause: error });
    }
    this.#captureSession(response);
    return parseResponse<Data>(response, text);
  }

  /**
   * Requests that fail together on one dead session share one registration, instead of each
   * opening its own session. A cookie that changed meanwhile was renewed already: just retry.
   */
  async #renewSession(registration: RegisterRequest, failedCookie: string | undefined): Promise<void> {
    if (this.#sessionCookie !== failedCookie) return;
    this.#renewal ??= this.register(registration)
      .then(() => undefined)
      .finally(() => {
        this.#renewal = undefined;
      });
    await this.#renewal;
  }

  #captureSession(response: Response): void {
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair] = setCookie.split(";");
      if (pair?.startsWith(`${sessionCookieName}=`)) this.#sessionCookie = pair.trim();
    }
  }

  #backoffMs(attempt: number): number {
    const ceilingMs = Math.min(this.#retry.delayMsMax, this.#retry.delayMsBase * 2 ** (attempt - 1));
    // Half fixed, half jitter: clients that failed together do not all come back together.
    return ceilingMs / 2 + Math.random() * (ceilingMs / 2);
  }
}

export interface MarketListRequest {
  readonly page?: number;
  readonly pageSize?: number;
  readonly categoryId?: string;
  readonly status?: string;
}

export interface CategoryTreeRequest {
  /** Sent as given, so tests can send a bad one; a level-1 category id. */
  readonly category1Id?: string | number;
  readonly language?: string;
  readonly acceptLanguage?: string;
}

export interface SearchRequest {
  readonly keyword: string;
  readonly searchBy?: "Market" | "Creator";
  readonly page?: number;
  readonly pageSize?: number;
}

/** The query parameters that are set, as strings. */
/** The order as sent: its own clientOrderId, or a fresh UUID that makes a resend safe. */
function withClientOrderId(order: CreateOrderRequest): CreateOrderRequest {
  return order.clientOrderId === undefined ? { ...order, clientOrderId: randomUUID() } : order;
}

function stringQuery(query: object): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params[name] = String(value);
  return params;
}

export interface BookRequest {
  readonly marketId: string;
  readonly outcomeId: string;
  readonly optionId?: string;
}

export interface OpenOrdersQuery {
  readonly marketId?: string;
  readonly page?: number;
  readonly pageSize?: number;
}

export interface WalletHistoryRequest {
  readonly page?: number;
  readonly pageSize?: number;
}

export interface AccountHistoryRequest extends WalletHistoryRequest {
  /** One ledger entry type, e.g. DEPOSIT, TRADE, WITHDRAWAL_FREEZE. */
  readonly type?: string;
}

export interface TradesQuery {
  readonly marketId?: string;
  readonly page?: number;
  readonly pageSize?: number;
}

/** A page of records with the pagination fields the server put beside `data`. */
export interface PositionsQuery {
  readonly marketId?: string;
  readonly status?: "open" | "settled" | "claimed";
  readonly page?: number;
  readonly pageSize?: number;
}

export interface PositionsPage {
  readonly current: number;
  readonly size: number;
  readonly total: number;
  readonly pages: number;
  readonly records: PositionRecord[];
}

export interface PagedResult<Item> {
  readonly records: Item[];
  readonly current: number;
  readonly size: number;
  readonly total: number;
  readonly pages: number;
}

function bookQuery(request: BookRequest): Record<string, string> {
  return {
    marketId: request.marketId,
    outcomeId: request.outcomeId,
    ...(request.optionId === undefined ? {} : { optionId: request.optionId }),
  };
}

function pagedResult<Item>(envelope: ApiEnvelope<Item[]>): PagedResult<Item> {
  return {
    records: envelope.data,
    current: envelope.current as number,
    size: envelope.size as number,
    total: envelope.total as number,
    pages: envelope.pages as number,
  };
}

function parseResponse<Data>(response: Response, text: string): ApiEnvelope<Data> {
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.includes("json")) {
    if (
      (response.status === 400 && text === "Invalid Signature") ||
      (response.status === 401 && text === "Invalid Key")
    ) {
      throw new GatewayError(
        response.status,
        text,
        parseServerStringToSign(response.headers.get("x-ca-error-message")),
        response.headers.get("x-ca-error-reason") ?? undefined,
      );
    }
    throw new PredexApiError(response.status, null, text);
  }
  let envelope: ApiEnvelope<Data>;
  try {
    envelope = JSON.parse(text) as ApiEnvelope<Data>;
  } catch {
    throw new PredexApiError(response.status, null, text);
  }
  if (response.status !== 200 || envelope.code !== 0) {
    const retryAfterSeconds = Number(response.headers.get("retry-after") ?? Number.NaN);
    const ApiError = apiErrorClass(response.status, envelope.code ?? null);
    throw new ApiError(
      response.status,
      envelope.code ?? null,
      envelope.message ?? text,
      Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0 ? retryAfterSeconds * 1000 : undefined,
    );
  }
  return envelope;
}

/** `Invalid Signature, Server StringToSign:`…`` with newlines shown as `#`. */
export function parseServerStringToSign(header: string | null): string | undefined {
  const match = header === null ? null : /StringToSign:`(.*)`$/s.exec(header);
  return match?.[1]?.replaceAll("#", "\n");
}
