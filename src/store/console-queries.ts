// The port of the web console's read queries (the SQLite adapter is src/store/sqlite/console-queries.ts).

import type { Page, PageRequest } from "./exchange-read-models.js";

/** One trade as the public sees it: the taker's side, price in the asked option's terms. */
export interface PublicTradeRow {
  readonly tradeId: number;
  /** Atoms, in the terms of the option the query named. */
  readonly price: bigint;
  readonly shares: bigint;
  /** The taker's side, in the terms of the option the query named. */
  readonly takerSide: "BUY" | "SELL";
  readonly timeMs: number;
  /** The taker's own order: the option it named, its side, and the trade price in that option's terms. */
  readonly taker: { readonly optionId: number; readonly side: "BUY" | "SELL"; readonly price: bigint };
}

export interface PartnerListRow {
  readonly partnerId: number;
  readonly name: string;
  readonly appKey: string;
  readonly commissionRateBps: number;
  readonly webhookUrl: string | null;
  readonly signedNonceRequired: boolean;
  readonly createdAtMs: number;
  readonly userCount: number;
}

export interface UserListRow {
  readonly userId: number;
  readonly partnerId: number;
  readonly partnerName: string;
  readonly marchantUserId: string;
  readonly email: string;
  readonly userName: string;
  readonly createdAtMs: number;
  /** Sessions neither revoked nor expired at the asked time. */
  readonly activeSessions: number;
}

export interface UserListFilter {
  /** Matches the start of the merchant's user id, the e-mail or the user name, or the user id exactly. */
  readonly keyword?: string | undefined;
  readonly partnerId?: number | undefined;
}

export interface MarketListRow {
  readonly marketId: number;
  readonly title: string;
  readonly modelType: string;
  readonly status: string;
  readonly categoryId: string | null;
  readonly startTimeMs: number | null;
  readonly endTimeMs: number | null;
  readonly createdAtMs: number;
  readonly volume: bigint;
  /** An exclusive market (DESIGN §10). */
  readonly exclusive: boolean;
}

export interface MarketListFilterAdmin {
  readonly status?: string | undefined;
  /** A substring of the title (case-insensitive for ASCII), or the market id exactly. */
  readonly keyword?: string | undefined;
}

export interface DepositListRow {
  readonly txHash: string;
  readonly userId: number;
  readonly amount: bigint;
  readonly creditedAtMs: number;
}

export interface ConsoleQueries {
  /** The newest trades of an option's outcome, newest first, priced in that option's terms. */
  recentTrades(optionId: number, limit: number): Promise<PublicTradeRow[]>;
  partners(page: PageRequest): Promise<Page<PartnerListRow>>;
  users(filter: UserListFilter, page: PageRequest, nowMs: number): Promise<Page<UserListRow>>;
  markets(filter: MarketListFilterAdmin, page: PageRequest): Promise<Page<MarketListRow>>;
  deposits(filter: { userId?: number | undefined }, page: PageRequest): Promise<Page<DepositListRow>>;
}
