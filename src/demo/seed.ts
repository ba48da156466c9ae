// Seeds the demo through the public surfaces only — the admin API for the operator's part, the
// signed partner API for users — so `predex serve --demo` and `predex demo` against a running
// server do exactly the same. Every step first looks at the data, so running it again creates
// nothing twice: categories are found by name under their parent, markets by title among the open
// listed ones, users by marchantUserId, and deposits are idempotent on their txHash.

import type { CategoryNode } from "../catalog/category-tree.js";
import type { MarketDetail } from "../contract/partner/market-detail.js";
import type { PredexAdminClient } from "../sdk/admin-client.js";
import type { PredexClient } from "../sdk/client.js";
import {
  type DemoCategory,
  type DemoMarket,
  type DemoUser,
  demoAmmLiquidityUsdt,
  demoCategories,
  demoMakerUser,
  demoMarkets,
  demoParimutuelSettlementFeeBps,
  demoPeopleUsers,
  demoTakerUser,
} from "./content.js";

export interface DemoLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface SeedTargets {
  readonly admin: PredexAdminClient;
  /** A fresh signed client of the demo partner; each user gets its own (one session each). */
  readonly newPartnerClient: () => PredexClient;
  readonly merchantId: string;
  readonly log: DemoLog;
  readonly nowMs?: () => number;
}

export interface SeededOutcome {
  readonly outcomeId: string;
  readonly yesOptionId: string;
  readonly noOptionId: string;
  /** The Yes price now: the existing market's, or the content's starting price for a new one. */
  readonly yesPrice: number;
}

/** A seeded market: its first outcome's ids and price, and (an exclusive event's) every outcome. */
export interface SeededMarket extends SeededOutcome {
  readonly title: string;
  readonly modelType: DemoMarket["modelType"];
  readonly marketId: string;
  /** An exclusive event's outcomes, in order; absent for a market of one outcome. */
  readonly outcomes?: readonly SeededOutcome[];
}

export interface SeededUser {
  readonly marchantUserId: string;
  readonly userId: string;
  /** Signed in as this user (session cookie kept, renewed by registering again). */
  readonly client: PredexClient;
}

export interface DemoSeed {
  /** True when this run created categories or markets: the data had no demo yet. */
  readonly createdNow: boolean;
  readonly markets: readonly SeededMarket[];
  readonly maker: SeededUser;
  readonly taker: SeededUser;
  readonly people: readonly SeededUser[];
}

const dayMs = 86_400_000;
/** Trading starts a minute ago, so the book is live as soon as the market opens. */
const startLeadMs = 60_000;
/** Listed markets read to find the demo's own (100 per page). */
const listedMarketPagesMax = 20;
const listPageSize = 100;

export async function seedDemo(targets: SeedTargets): Promise<DemoSeed> {
  const catalogueClient = targets.newPartnerClient();
  const categories = await seedCategories(targets, catalogueClient);
  const { markets, created: marketsCreated } = await seedMarkets(targets, catalogueClient, categories.ids);
  const [maker, taker, ...people] = await Promise.all(
    [demoMakerUser, demoTakerUser, ...demoPeopleUsers].map((user) => seedUser(targets, user)),
  );
  return {
    createdNow: categories.created + marketsCreated > 0,
    markets,
    maker: maker!,
    taker: taker!,
    people,
  };
}

async function seedCategories(
  targets: SeedTargets,
  client: PredexClient,
): Promise<{ ids: ReadonlyMap<string, string>; created: number }> {
  const roots = await client.getCategoryTree({ language: "en-US" });
  const nodes = new Map<string, { id: string; children: readonly CategoryNode[] }>();
  let created = 0;
  for (const category of demoCategories) {
    const siblings =
      category.parentKey === undefined ? roots : (nodes.get(category.parentKey)?.children ?? []);
    const existing = siblings.find((node) => node.name === category.name);
    if (existing !== undefined) {
      nodes.set(category.key, existing);
      continue;
    }
    const node = await targets.admin.createCategory(categoryRequest(category, nodes));
    nodes.set(category.key, { id: node.id, children: [] });
    created += 1;
  }
  return { ids: new Map([...nodes].map(([key, node]) => [key, node.id])), created };
}

function categoryRequest(
  category: DemoCategory,
  nodes: ReadonlyMap<string, { id: string }>,
): Parameters<PredexAdminClient["createCategory"]>[0] {
  const parentId = category.parentKey === undefined ? undefined : nodes.get(category.parentKey)?.id;
  return {
    name: category.name,
    names: { "en-US": category.name, "zh-CN": category.zhName },
    ...(parentId === undefined ? {} : { parentId }),
  };
}

async function seedMarkets(
  targets: SeedTargets,
  client: PredexClient,
  categoryIds: ReadonlyMap<string, string>,
): Promise<{ markets: SeededMarket[]; created: number }> {
  const openByTitle = await openListedMarketsByTitle(client);
  const markets: SeededMarket[] = [];
  let created = 0;
  for (const market of demoMarkets) {
    const existing = openByTitle.get(market.title);
    if (existing !== undefined) {
      markets.push(existing);
      continue;
    }
    const categoryId = categoryIds.get(market.categoryKey);
    if (categoryId === undefined) continue;
    try {
      const draft = await targets.admin.createMarket(
        marketRequest(market, categoryId, targets.nowMs ?? Date.now),
      );
      const opened = await targets.admin.openMarket(draft.marketId);
      const prices = market.exclusiveOutcomes?.map((outcome) => outcome.initialYesPrice) ?? [
        market.initialYesPrice,
      ];
      markets.push(seededMarketOf(market.title, opened, prices));
      created += 1;
    } catch (error) {
      // A platform without AMM or parimutuel markets refuses them; the demo goes on without them.
      const what =
        market.modelType === "orderbook" ? `market "${market.title}"` : `${market.modelType} market`;
      targets.log.warn(`demo: skipped the ${what}: ${errorMessage(error)}`);
    }
  }
  return { markets, created };
}

/** The open markets a partner can list, by title (drafts are never listed, closed ones are not reused). */
async function openListedMarketsByTitle(client: PredexClient): Promise<Map<string, SeededMarket>> {
  const byTitle = new Map<string, SeededMarket>();
  for (let page = 1; page <= listedMarketPagesMax; page += 1) {
    const listed = await client.listMarkets({ page, pageSize: listPageSize, status: "open" });
    for (const record of listed.records) {
      const outcomes: SeededOutcome[] = [];
      for (const outcome of record.outcomes) {
        const yes = outcome.options.find((option) => option.optionIndex === 0);
        const no = outcome.options.find((option) => option.optionIndex === 1);
        if (yes === undefined || no === undefined) break;
        outcomes.push({
          outcomeId: outcome.outcomeId,
          yesOptionId: yes.optionId,
          noOptionId: no.optionId,
          yesPrice: Number(yes.price),
        });
      }
      const first = outcomes[0];
      if (first === undefined || outcomes.length !== record.outcomes.length || byTitle.has(record.title))
        continue;
      byTitle.set(record.title, {
        title: record.title,
        modelType: record.modelType as DemoMarket["modelType"],
        marketId: record.marketId,
        ...first,
        ...(outcomes.length > 1 ? { outcomes } : {}),
      });
    }
    if (page >= listed.pages) break;
  }
  return byTitle;
}

function marketRequest(
  market: DemoMarket,
  categoryId: string,
  nowMs: () => number,
): Parameters<PredexAdminClient["createMarket"]>[0] {
  const now = nowMs();
  const common = {
    title: market.title,
    description: market.description,
    rules: market.rules,
    tags: market.tags,
    categoryId,
    modelType: market.modelType,
    startTime: isoSeconds(now - startLeadMs),
    endTime: isoSeconds(now + market.endsInDays * dayMs),
    outcomes: (market.exclusiveOutcomes?.map((outcome) => outcome.name) ?? [market.outcomeName]).map(
      (name) => ({ name, options: [{ title: "Yes" }, { title: "No" }] }),
    ),
    ...(market.exclusiveOutcomes === undefined ? {} : { exclusive: true }),
  };
  if (market.modelType === "AMM") {
    // In hundredths, so that the two weights add up to exactly 1.
    const yesCents = Math.round(market.initialYesPrice * 100);
    return {
      ...common,
      liquidity: demoAmmLiquidityUsdt,
      weights: [(yesCents / 100).toFixed(2), ((100 - yesCents) / 100).toFixed(2)],
    };
  }
  if (market.modelType === "parimutuel") return { ...common, settlementFee: demoParimutuelSettlementFeeBps };
  return common;
}

/** `yesPrices`: the starting Yes price of each outcome, in order. */
function seededMarketOf(title: string, detail: MarketDetail, yesPrices: readonly number[]): SeededMarket {
  const outcomes = detail.outcomes.map((outcome, index) => ({
    outcomeId: outcome.outcomeId,
    yesOptionId: outcome.options[0]!.optionId,
    noOptionId: outcome.options[1]!.optionId,
    yesPrice: yesPrices[index] ?? yesPrices[0]!,
  }));
  return {
    title,
    modelType: detail.modelType as DemoMarket["modelType"],
    marketId: detail.marketId,
    ...outcomes[0]!,
    ...(outcomes.length > 1 ? { outcomes } : {}),
  };
}

async function seedUser(targets: SeedTargets, user: DemoUser): Promise<SeededUser> {
  const client = targets.newPartnerClient();
  const registered = await client.register({
    userEmail: user.email,
    merchantId: targets.merchantId,
    marchantUserId: user.marchantUserId,
  });
  try {
    await targets.admin.deposit({
      userId: registered.userId,
      amount: String(user.fundingUsdt),
      txHash: `demo-funding-${user.marchantUserId}`,
    });
  } catch (error) {
    // Already credited with another amount (the content changed since): the user keeps what it has.
    targets.log.warn(`demo: funding ${user.marchantUserId} was refused: ${errorMessage(error)}`);
  }
  return { marchantUserId: user.marchantUserId, userId: registered.userId, client };
}

export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
