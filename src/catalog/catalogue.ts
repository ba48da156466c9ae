// The catalogue as the partner API reads it: market detail, list, search, holders and live volume,
// with clicks counted and hotScore kept current. Built market details are cached per market and
// dropped whenever a commit touches the market (the projector tells us) or a category changes; a
// list page is cached for at most listPageCacheTtlMs, so hotScore never looks older than that.
// Detail views are counted in memory and written in one transaction every clickFlushIntervalMs.

import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { ExchangeReadModels, Page, PageRequest } from "../store/exchange-read-models.js";
import { addHeat, hotScoreAt, hotScoreUsdtPerClick } from "../store/hot-score.js";
import type {
  MarketCatalogStore,
  MarketListFilter,
  MarketSearchQuery,
  MarketStats,
} from "../store/market-catalog.js";
import type { CategoryService } from "./categories.js";
import { loadMarketDetail } from "./load-market-detail.js";
import { defaultCreatorImageUrl, type MarketDetail } from "./market-detail.js";
import { buildMarketHolders, type HolderProfile, type MarketHolders } from "./market-holders.js";
import { listRecordOf, type MarketListRecord } from "./market-list-record.js";

/** Holders shown per option: the largest, by shares held. */
export const holdersPerOptionMax = 10;
export const clickFlushIntervalMs = 1_000;
export const listPageCacheTtlMs = 1_000;
/** Past these, a cache is emptied rather than grown (a crude bound, enough for one process). */
export const detailCacheEntriesMax = 20_000;
export const listPageCacheEntriesMax = 1_000;
export const statsCacheEntriesMax = 20_000;

export interface CatalogueOptions {
  readonly engine: ExchangeEngine;
  readonly exchangeReadModels: ExchangeReadModels;
  readonly store: MarketCatalogStore;
  readonly categories: CategoryService;
  readonly users: { findUser(userId: number): Promise<HolderProfile | undefined> };
  readonly nowMs: () => number;
  /**
   * Registers the listener the projector calls with the markets each commit touched; undefined when
   * any market may have changed (on PostgreSQL, after the node's listening connection was lost).
   */
  readonly onMarketsChanged: (listener: (marketIds: ReadonlySet<number> | undefined) => void) => void;
  readonly onError: (error: unknown) => void;
  /**
   * Where the read models follow the journal (SQLite: src/engine/deferred-projection.ts), brings
   * them up to the last committed command, which tells onMarketsChanged of what it touched: called
   * before a cached view is used, so a view never misses an acknowledged command. On PostgreSQL it
   * waits until the read models hold what this node's replica holds (the markets they touched
   * have been told to onMarketsChanged by then).
   */
  readonly catchUpReadModels?: (() => void | Promise<void>) | undefined;
}

export interface MarketActivity {
  readonly hotScore: number;
  readonly clicks: number;
}

interface CachedListPage {
  readonly builtAtMs: number;
  readonly page: Page<MarketListRecord>;
}

export class Catalogue {
  readonly #options: CatalogueOptions;
  /** Details as built, without the per-request hotScore and clicks. */
  readonly #details = new Map<number, MarketDetail>();
  readonly #listPages = new Map<string, CachedListPage>();
  readonly #stats = new Map<number, MarketStats>();
  readonly #pendingClicks = new Map<number, number>();
  /** Views being written: still counted until the stored figures that include them are read back. */
  #flushingClicks: ReadonlyMap<number, number> = new Map();
  /** Bumped by every invalidation; a build that saw another generation is not cached (it may be stale). */
  #generation = 0;
  readonly #flushTimer: NodeJS.Timeout;

  constructor(options: CatalogueOptions) {
    this.#options = options;
    options.onMarketsChanged((marketIds) => this.#invalidate(marketIds));
    options.categories.onChange(() => this.#invalidate(undefined));
    this.#flushTimer = setInterval(() => {
      this.flushClicks().catch(options.onError);
    }, clickFlushIntervalMs);
    this.#flushTimer.unref();
  }

  /** The market detail with current hotScore and clicks, or undefined for an unknown market. */
  async detail(marketId: number): Promise<MarketDetail | undefined> {
    const base = await this.#baseDetail(marketId);
    if (base === undefined) return undefined;
    return { ...base, ...(await this.activityOf(marketId)) };
  }

  /**
   * A partner's view of the detail, counted as a click (written with the next flush, shown at
   * once): the cached detail (the same object until the market changes) and its current activity,
   * apart, so the caller can reuse work done for the cached part.
   */
  async viewDetail(marketId: number): Promise<{ base: MarketDetail; activity: MarketActivity } | undefined> {
    const base = await this.#baseDetail(marketId);
    if (base === undefined) return undefined;
    this.recordClick(marketId);
    return { base, activity: await this.activityOf(marketId) };
  }

  recordClick(marketId: number): void {
    this.#pendingClicks.set(marketId, (this.#pendingClicks.get(marketId) ?? 0) + 1);
  }

  async activityOf(marketId: number): Promise<MarketActivity> {
    await this.#options.catchUpReadModels?.();
    let stats = this.#stats.get(marketId);
    if (stats === undefined) {
      stats = await this.#options.store.stats(marketId);
      if (this.#stats.size >= statsCacheEntriesMax) this.#stats.clear();
      this.#stats.set(marketId, stats);
    }
    const pending = (this.#pendingClicks.get(marketId) ?? 0) + (this.#flushingClicks.get(marketId) ?? 0);
    const nowMs = this.#options.nowMs();
    const heat = pending === 0 ? stats.heat : addHeat(stats.heat, pending * hotScoreUsdtPerClick, nowMs);
    return { hotScore: hotScoreAt(heat, nowMs), clicks: stats.clicks + pending };
  }

  async list(filter: MarketListFilter, page: PageRequest): Promise<Page<MarketListRecord>> {
    const key = `${filter.categoryId ?? ""}|${filter.status ?? ""}|${page.page}|${page.pageSize}`;
    const nowMs = this.#options.nowMs();
    await this.#options.catchUpReadModels?.();
    const cached = this.#listPages.get(key);
    if (cached !== undefined && nowMs - cached.builtAtMs < listPageCacheTtlMs) return cached.page;
    const generation = this.#generation;
    const ids = await this.#options.store.listedMarketIds(filter, page);
    const built = { records: await this.#records(ids.records), total: ids.total };
    if (generation === this.#generation) {
      if (this.#listPages.size >= listPageCacheEntriesMax) this.#listPages.clear();
      this.#listPages.set(key, { builtAtMs: nowMs, page: built });
    }
    return built;
  }

  async search(query: MarketSearchQuery, page: PageRequest): Promise<Page<MarketListRecord>> {
    const ids = await this.#options.store.search(query, page);
    return { records: await this.#records(ids.records), total: ids.total };
  }

  async holders(marketId: number): Promise<MarketHolders | undefined> {
    const detail = await this.detail(marketId);
    const catalog = await this.#options.exchangeReadModels.market(marketId);
    if (detail === undefined || catalog === undefined) return undefined;
    const holders = await this.#options.store.topHolders(marketId, holdersPerOptionMax);
    const profiles = new Map<number, HolderProfile>();
    for (const userId of new Set(holders.map((row) => row.userId))) {
      const user = await this.#options.users.findUser(userId);
      if (user !== undefined) profiles.set(userId, { userName: user.userName, avatarUrl: user.avatarUrl });
    }
    return buildMarketHolders({
      detail,
      catalog,
      holders,
      profiles,
      defaultAvatarUrl: defaultCreatorImageUrl,
    });
  }

  async liveVolume(marketId: number): Promise<{ marketId: string; volume: string } | undefined> {
    const base = await this.#baseDetail(marketId);
    return base === undefined ? undefined : { marketId: base.marketId, volume: base.volume };
  }

  /** Writes the counted views (and their heat); the server calls it once more when it stops. */
  async flushClicks(): Promise<void> {
    if (this.#pendingClicks.size === 0) return;
    const clicks = new Map(this.#pendingClicks);
    this.#pendingClicks.clear();
    this.#flushingClicks = clicks;
    try {
      await this.#options.store.addClicks(clicks, this.#options.nowMs());
    } finally {
      for (const marketId of clicks.keys()) this.#stats.delete(marketId);
      this.#flushingClicks = new Map();
    }
    // The order of the list follows hotScore, which the views just moved.
    this.#listPages.clear();
  }

  async close(): Promise<void> {
    clearInterval(this.#flushTimer);
    await this.flushClicks();
  }

  async #records(marketIds: readonly number[]): Promise<MarketListRecord[]> {
    const records: MarketListRecord[] = [];
    for (const marketId of marketIds) {
      const detail = await this.detail(marketId);
      // A market listed by the store always has a detail; skipping keeps a page whole if not.
      if (detail !== undefined) records.push(listRecordOf(detail));
    }
    return records;
  }

  async #baseDetail(marketId: number): Promise<MarketDetail | undefined> {
    await this.#options.catchUpReadModels?.();
    const cached = this.#details.get(marketId);
    if (cached !== undefined) return cached;
    const generation = this.#generation;
    const built = await loadMarketDetail(
      {
        engine: this.#options.engine,
        exchangeReadModels: this.#options.exchangeReadModels,
        categories: this.#options.categories,
      },
      marketId,
    );
    if (built !== undefined && generation === this.#generation) {
      if (this.#details.size >= detailCacheEntriesMax) this.#details.clear();
      this.#details.set(marketId, built);
    }
    return built;
  }

  /** undefined: everything (a category changed). */
  #invalidate(marketIds: ReadonlySet<number> | undefined): void {
    this.#generation += 1;
    this.#listPages.clear();
    if (marketIds === undefined) {
      this.#details.clear();
      this.#stats.clear();
      return;
    }
    for (const marketId of marketIds) {
      this.#details.delete(marketId);
      this.#stats.delete(marketId);
    }
  }
}
