// Shared set-up of the trading end-to-end tests: a real platform on port 0, the operator's client,
// markets created and opened through the admin API, and users funded by admin deposits.

import assert from "node:assert/strict";
import type { MarketDetail } from "../../src/contract/partner/market-detail.js";
import type { CreateOrderRequest } from "../../src/contract/partner/trading.js";
import { parseAtoms } from "../../src/core/money.js";
import { type CreateMarketRequest, PredexAdminClient } from "../../src/sdk/admin-client.js";
import type { PredexClient } from "../../src/sdk/client.js";
import {
  type PartnerCredentials,
  startTestPlatform,
  type TestPlatform,
  type TestPlatformOptions,
} from "./harness.js";

export interface TradingPlatform extends TestPlatform {
  readonly operator: PredexAdminClient;
  /** A partner shared by the users of a test file. */
  readonly partner: PartnerCredentials;
  /** Creates a market (defaults: one binary outcome, trading from an hour ago to a day ahead). */
  createMarket(overrides?: Partial<CreateMarketRequest>): Promise<MarketDetail>;
  /** Creates and opens a market; returns its ids. */
  openMarket(overrides?: Partial<CreateMarketRequest>): Promise<BinaryMarket>;
  /** A registered user of `partner` with `usdt` deposited (none when "0"). */
  fundedUser(usdt: string): Promise<{ client: PredexClient; userId: string }>;
}

export interface BinaryMarket {
  readonly marketId: string;
  readonly outcomeId: string;
  readonly yes: string;
  readonly no: string;
  readonly detail: MarketDetail;
}

/** The order most trading tests place: a LIMIT BUY, by default of 10 Yes at 0.4 on `market`; `fields` change it. */
export function limitBid(market: BinaryMarket, fields: Partial<CreateOrderRequest> = {}): CreateOrderRequest {
  return {
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId: market.yes,
    side: "BUY",
    orderType: "LIMIT",
    limitPrice: 0.4,
    shares: 10,
    ...fields,
  };
}

const hourMs = 3_600_000;
let depositCounter = 0;

/** A decimal string as atoms (1e-8); the string must parse. */
export function atoms(decimal: string): bigint {
  const parsed = parseAtoms(decimal);
  assert.ok(parsed.ok, decimal);
  return parsed.atoms;
}

export function isoAt(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export async function startTradingPlatform(options: TestPlatformOptions = {}): Promise<TradingPlatform> {
  const platform = await startTestPlatform(options);
  const operator = new PredexAdminClient({
    baseUrl: platform.addresses.admin,
    token: platform.platform.adminToken,
  });
  const partner = await platform.createPartner();
  // Markets are filed under a category that exists (POST /admin/markets checks it).
  const category = await operator.createCategory({ name: "Weather" });
  const createMarket = (overrides: Partial<CreateMarketRequest> = {}) =>
    operator.createMarket({
      title: "Will it rain in Paris tomorrow?",
      categoryId: category.id,
      startTime: isoAt(Date.now() - hourMs),
      endTime: isoAt(Date.now() + 24 * hourMs),
      outcomes: [{ name: "Rain in Paris", options: [{ title: "Yes" }, { title: "No" }] }],
      ...overrides,
    });
  return {
    ...platform,
    operator,
    partner,
    createMarket,
    async openMarket(overrides) {
      const created = await createMarket(overrides);
      const detail = await operator.openMarket(created.marketId);
      const outcome = detail.outcomes[0]!;
      return {
        marketId: detail.marketId,
        outcomeId: outcome.outcomeId,
        yes: outcome.options[0]!.optionId,
        no: outcome.options[1]!.optionId,
        detail,
      };
    },
    async fundedUser(usdt) {
      const { client, user } = await platform.registeredUser({ partner });
      if (usdt !== "0") {
        depositCounter += 1;
        await operator.deposit({
          userId: user.userId,
          amount: usdt,
          txHash: `0xtest-${process.pid}-${depositCounter}`,
        });
      }
      return { client, userId: user.userId };
    },
  };
}

/** The session user's USDT as decimal strings. */
export async function usdtOf(
  client: PredexClient,
): Promise<{ available: string; frozen: string; total: string }> {
  const [asset] = await client.getAssets();
  if (asset === undefined) throw new Error("no USDT asset");
  return { available: asset.available, frozen: asset.frozen, total: asset.total };
}
