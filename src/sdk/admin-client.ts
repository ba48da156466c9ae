// A small typed client for the operator API (DESIGN §5): bearer token, JSON in and out, the current
// interface's envelope. Used by tests, benchmarks and anyone scripting the operator's work.

import type { AdminMarketDetail } from "../contract/admin.js";
import type { Withdrawal } from "../contract/partner/wallet.js";
import { NetworkError, PredexApiError } from "./errors.js";

export interface AdminClientOptions {
  /** The admin listener, e.g. `http://127.0.0.1:8083`. */
  readonly baseUrl: string;
  readonly token: string;
  readonly timeoutMs?: number;
}

export interface CreatedPartner {
  readonly merchantId: string;
  readonly appKey: string;
  readonly appSecret: string;
  readonly apiKey: string;
  /** Verifies the merchant's webhooks (Standard Webhooks `whsec_…`). */
  readonly webhookSecret: string;
}

/** A partner as the operator sees it (`GET`/`POST /admin/partners/{merchantId}`): no secrets. */
export interface AdminPartner {
  readonly merchantId: string;
  readonly name: string;
  readonly appKey: string;
  /** 0 to 1, decimal string. */
  readonly commissionRate: string;
  readonly webhookUrl: string | null;
  /** Requests other than GET, HEAD and OPTIONS must sign an `x-ca-nonce` (401/1401 otherwise). */
  readonly signedNonceRequired: boolean;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
}

/** The operator's changes to a partner; an absent field is left as it is. */
export interface UpdatePartnerRequest {
  readonly signedNonceRequired?: boolean;
}

export interface CreateMarketRequest {
  readonly title: string;
  readonly description?: string;
  readonly rules?: string;
  readonly categoryId: string | number;
  readonly tags?: string;
  readonly modelType?: "orderbook" | "AMM" | "parimutuel";
  readonly tickSize?: number | string;
  readonly minOrderSize?: number | string;
  readonly makerFee?: number;
  readonly takerFee?: number;
  readonly buyFee?: number;
  readonly sellFee?: number;
  readonly marketOrderPriceProtection?: number | string;
  readonly limitOrderPriceProtection?: number | string;
  readonly startTime: string;
  readonly endTime: string;
  readonly creatorId?: string | number;
  readonly marketLogo?: string;
  readonly marketBanner?: string;
  /** AMM: USDT funding each outcome's pool (≥ 100) and the options' initial prices (adding up to 1). */
  readonly liquidity?: number | string;
  readonly weights?: readonly (number | string)[];
  /** Parimutuel: basis points taken from each pool at settlement. */
  readonly settlementFee?: number;
  readonly buyMinAmount?: number | string;
  readonly buyMaxAmount?: number | string;
  readonly sellMinShares?: number | string;
  readonly sellMaxShares?: number | string;
  /** An exclusive event (orderbook, at least two outcomes): exactly one outcome wins, No shares convert. */
  readonly exclusive?: boolean;
  readonly outcomes: readonly {
    readonly name: string;
    readonly title?: string;
    readonly description?: string;
    readonly options: readonly { readonly title: string }[];
  }[];
}

export interface CreateCategoryRequest {
  readonly name: string;
  readonly parentId?: string | number;
  /** Display names by language tag ("en-US", "zh-CN", …). */
  readonly names?: Readonly<Record<string, string>>;
  readonly logoUrl?: string;
}

export interface UpdateCategoryRequest {
  readonly name?: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly logoUrl?: string;
  readonly online?: boolean;
}

/** A category node as the operator sees it. */
export interface AdminCategory {
  readonly id: string;
  readonly parentId: string | null;
  readonly level: number;
  readonly name: string;
  readonly names: Readonly<Record<string, string>>;
  readonly logoUrl: string;
  readonly online: boolean;
  readonly deleted: boolean;
}

export interface WinnerRequest {
  readonly outcomeId: string | number;
  readonly winningOptionId: string | number;
}

export interface ResolveMarketRequest {
  readonly outcomes: readonly WinnerRequest[];
  readonly challengeWindowSeconds?: number;
  readonly challengeBondAmount?: number | string;
  /** The market's creator, when the creator proposes the result. */
  readonly creatorId?: string | number;
}

const marketPath = (marketId: string | number) => `/admin/markets/${encodeURIComponent(String(marketId))}`;

export interface Deposit {
  readonly userId: string;
  readonly amount: string;
  readonly txHash: string;
  readonly creditedAt: string;
}

export type DepositRequest = (
  | { readonly userId: string | number; readonly address?: never }
  | { readonly address: string; readonly userId?: never }
) & { readonly amount: number | string; readonly txHash: string };

/** A withdrawal as the operator sees it: the user's view plus its owner. */
export interface AdminWithdrawal extends Withdrawal {
  readonly userId: string;
  /** The on-chain payment, when a chain is configured and it has one (src/chain). */
  readonly chain: {
    /** WAITING, SIGNED, SENT, COMPLETED, FAILED, DROPPED or HELD. */
    readonly status: string;
    readonly txHash: string | null;
    readonly nonce: number | null;
    readonly broadcasts: number;
    readonly error: string | null;
    /**
     * Every transaction signed for it, oldest first: the first and each replacement at its nonce
     * with higher fees (wei, decimal strings). PENDING may still be mined; of one nonce exactly one
     * ends MINED and the others DEAD.
     */
    readonly transactions: readonly {
      readonly txHash: string;
      readonly nonce: number;
      readonly state: "PENDING" | "MINED" | "DEAD";
      readonly maxFeePerGas: string;
      readonly maxPriorityFeePerGas: string;
      readonly signedAt: string;
    }[];
  } | null;
}

export interface UnsignedWithdrawal {
  readonly withdrawId: string;
  readonly userId: string;
  readonly recipient: string;
  readonly amount: string;
  readonly tokenUnits: string;
  readonly chainId: number;
  readonly to: string;
  readonly value: string;
  readonly data: string;
  readonly from: string | null;
  readonly nonce: number | null;
  readonly gas: string | null;
  readonly maxFeePerGas: string | null;
  readonly maxPriorityFeePerGas: string | null;
  readonly unsignedTransaction: string | null;
  readonly problem: string | null;
}

export interface ChainState {
  readonly enabled: boolean;
  readonly depositXpub: string;
  readonly demoDepositKey: boolean;
  readonly chainId: number | null;
  readonly token: string | null;
  readonly decimals: number | null;
  readonly confirmations: number | null;
  readonly head: string | null;
  readonly cursor: string | null;
  readonly watchedAddresses: number;
  readonly withdrawals: "hot-wallet" | "export" | "off";
  readonly hotWallet: {
    readonly address: string;
    readonly tokenBalance: string;
    readonly gasBalanceWei: string;
  } | null;
}

export interface ChainDepositRecord {
  readonly txHash: string;
  readonly logIndex: number;
  readonly userId: string;
  readonly address: string;
  readonly amount: string;
  readonly tokenUnits: string;
  readonly blockNumber: string;
  readonly blockHash: string;
  /** PENDING, CREDITED, DROPPED or BELOW_MINIMUM. */
  readonly status: string;
  readonly seenAt: string;
  readonly updatedAt: string;
}

export interface AdminWithdrawalsQuery {
  /** PENDING, APPROVED, COMPLETED, CANCELLED or REJECTED. */
  readonly status?: string;
  readonly userId?: string | number;
  readonly page?: number;
  readonly pageSize?: number;
}

export class PredexAdminClient {
  readonly #options: AdminClientOptions;

  constructor(options: AdminClientOptions) {
    this.#options = options;
  }

  createPartner(body: { name?: string; commissionRate?: string | number; webhookUrl?: string } = {}) {
    return this.request<CreatedPartner>("POST", "/admin/partners", body);
  }

  getPartner(merchantId: string | number): Promise<AdminPartner> {
    return this.request<AdminPartner>("GET", `/admin/partners/${encodeURIComponent(String(merchantId))}`);
  }

  /** E.g. `{signedNonceRequired: true}`: the partner's mutating requests must then sign a nonce. */
  updatePartner(merchantId: string | number, body: UpdatePartnerRequest): Promise<AdminPartner> {
    return this.request<AdminPartner>(
      "POST",
      `/admin/partners/${encodeURIComponent(String(merchantId))}`,
      body,
    );
  }

  createCategory(body: CreateCategoryRequest): Promise<AdminCategory> {
    return this.request<AdminCategory>("POST", "/admin/categories", body);
  }

  updateCategory(categoryId: string | number, body: UpdateCategoryRequest): Promise<AdminCategory> {
    return this.request<AdminCategory>(
      "PATCH",
      `/admin/categories/${encodeURIComponent(String(categoryId))}`,
      body,
    );
  }

  /** Soft delete: the node leaves the tree. */
  deleteCategory(categoryId: string | number): Promise<AdminCategory> {
    return this.request<AdminCategory>(
      "DELETE",
      `/admin/categories/${encodeURIComponent(String(categoryId))}`,
    );
  }

  createMarket(body: CreateMarketRequest): Promise<AdminMarketDetail> {
    return this.request<AdminMarketDetail>("POST", "/admin/markets", body);
  }

  openMarket(marketId: string | number): Promise<AdminMarketDetail> {
    return this.request<AdminMarketDetail>(
      "POST",
      `/admin/markets/${encodeURIComponent(String(marketId))}/open`,
    );
  }

  closeMarket(marketId: string | number): Promise<AdminMarketDetail> {
    return this.request<AdminMarketDetail>(
      "POST",
      `/admin/markets/${encodeURIComponent(String(marketId))}/close`,
    );
  }

  /**
   * Proposes the winners of a closed market; it becomes `resolving` and can be challenged for
   * `challengeWindowSeconds` (default 24 h), a challenger posting `challengeBondAmount` (default 10).
   */
  resolveMarket(marketId: string | number, body: ResolveMarketRequest): Promise<AdminMarketDetail> {
    return this.request<AdminMarketDetail>("POST", `${marketPath(marketId)}/resolve`, body);
  }

  /** Settles a resolving market now; `outcomes` corrects the winners (after a challenge). */
  finalizeMarket(
    marketId: string | number,
    body: { outcomes?: readonly WinnerRequest[] } = {},
  ): Promise<AdminMarketDetail> {
    return this.request<AdminMarketDetail>("POST", `${marketPath(marketId)}/finalize`, body);
  }

  /** Voids a market that is not settled: orders cancelled, every share claimable at 0.5. */
  voidMarket(marketId: string | number): Promise<AdminMarketDetail> {
    return this.request<AdminMarketDetail>("POST", `${marketPath(marketId)}/void`);
  }

  /** Records a user's challenge of a proposed result; the bond is frozen from the user's balance. */
  challengeMarket(
    marketId: string | number,
    body: { userId: string | number; reason?: string },
  ): Promise<AdminMarketDetail> {
    return this.request<AdminMarketDetail>("POST", `${marketPath(marketId)}/challenges`, body);
  }

  /**
   * Credits `amount` USDT to a user named by `userId` or by its deposit `address`; the same txHash
   * again credits nothing and answers the first deposit.
   */
  deposit(body: DepositRequest): Promise<Deposit> {
    return this.request<Deposit>("POST", "/admin/deposits", body);
  }

  /** PENDING → APPROVED; the funds stay frozen until the withdrawal completes. */
  approveWithdrawal(withdrawId: string | number): Promise<AdminWithdrawal> {
    return this.#withdrawalAction(withdrawId, "approve");
  }

  /** PENDING or APPROVED → REJECTED; amount + fee go back to the user's available balance. */
  rejectWithdrawal(withdrawId: string | number): Promise<AdminWithdrawal> {
    return this.#withdrawalAction(withdrawId, "reject");
  }

  /**
   * APPROVED → COMPLETED: the transfer went out; amount and fee leave the user's balance. `txHash`:
   * the transaction that paid it, when the operator sent it from a wallet outside predex.
   */
  completeWithdrawal(withdrawId: string | number, txHash?: string): Promise<AdminWithdrawal> {
    if (txHash === undefined) return this.#withdrawalAction(withdrawId, "complete");
    return this.request<AdminWithdrawal>(
      "POST",
      `/admin/withdrawals/${encodeURIComponent(String(withdrawId))}/complete`,
      { txHash },
    );
  }

  /** A withdrawal whose chain transaction FAILED or was DROPPED is sent again, as a new transaction. */
  retryWithdrawal(withdrawId: string | number): Promise<AdminWithdrawal> {
    return this.request<AdminWithdrawal>(
      "POST",
      `/admin/withdrawals/${encodeURIComponent(String(withdrawId))}/retry`,
    );
  }

  /** Approved withdrawals as unsigned ERC20 transfers (no hot wallet); `from` fills in nonce, gas and fees. */
  exportWithdrawals(from?: string): Promise<{ records: UnsignedWithdrawal[] }> {
    const search = from === undefined ? "" : `?${new URLSearchParams({ from })}`;
    return this.request("GET", `/admin/withdrawals/export${search}`);
  }

  /** The chain wallet: deposit key, watcher's head and cursor, hot wallet balances. */
  chainState(): Promise<ChainState> {
    return this.request("GET", "/admin/chain");
  }

  /** Transfers the deposit watcher has seen, newest first. */
  chainDeposits(query: { status?: string; page?: number; pageSize?: number } = {}): Promise<{
    records: ChainDepositRecord[];
  }> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) params.set(name, String(value));
    const search = params.size === 0 ? "" : `?${params}`;
    return this.request("GET", `/admin/chain/deposits${search}`);
  }

  /** Withdrawals of every user (or one), newest first; `status: "PENDING"` is what waits for review. */
  listWithdrawals(query: AdminWithdrawalsQuery = {}): Promise<{ count: number; records: AdminWithdrawal[] }> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) params.set(name, String(value));
    const search = params.size === 0 ? "" : `?${params}`;
    return this.request("GET", `/admin/withdrawals${search}`);
  }

  #withdrawalAction(withdrawId: string | number, action: "approve" | "reject" | "complete") {
    return this.request<AdminWithdrawal>(
      "POST",
      `/admin/withdrawals/${encodeURIComponent(String(withdrawId))}/${action}`,
    );
  }

  async request<Data>(method: string, path: string, body?: unknown): Promise<Data> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(new URL(path, this.#options.baseUrl), {
        method,
        headers: {
          authorization: `Bearer ${this.#options.token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000),
      });
      text = await response.text();
    } catch (error) {
      throw new NetworkError(`${method} ${path} failed: ${(error as Error).message}`, { cause: error });
    }
    let envelope: { code?: number; message?: string; data?: Data };
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {
      throw new PredexApiError(response.status, null, text);
    }
    if (response.status !== 200 || envelope.code !== 0) {
      throw new PredexApiError(response.status, envelope.code ?? null, envelope.message ?? text);
    }
    return envelope.data as Data;
  }
}
