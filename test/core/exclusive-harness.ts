// Exclusive markets in the exchange harness (exchange-harness.ts): open one, buy No shares, convert.

import assert from "node:assert/strict";
import { type ConvertPositionsCommand, createMarketCommand } from "../../src/core/exchange.js";
import { atoms, type Exchange } from "./exchange-harness.js";

export const names = ["Ada", "Brook", "Cyd", "Dale"];

export interface ExclusiveMarket {
  marketId: number;
  outcomeIds: number[];
  yes: number[];
  no: number[];
}

/** Opens an exclusive market with `count` outcomes; returns its ids in outcome order. */
export function openExclusive(exchange: Exchange, count = 4, fields = {}): ExclusiveMarket {
  const [created] = exchange.accept(
    createMarketCommand({
      title: "Who wins?",
      outcomes: names.slice(0, count).map((name) => ({ name, options: null })),
      exclusive: true,
      ...fields,
    }),
  );
  assert.ok(created?.type === "MarketCreated");
  assert.equal(created.exclusive, true);
  exchange.accept({ type: "OpenMarket", marketId: created.marketId });
  return {
    marketId: created.marketId,
    outcomeIds: created.outcomes.map((outcome) => outcome.outcomeId),
    yes: created.outcomes.map((outcome) => outcome.options[0]!.optionId),
    no: created.outcomes.map((outcome) => outcome.options[1]!.optionId),
  };
}

/** `buyer` buys `shares` No of outcome `index` at `price` from a mint with `yesBuyer` (who gets the Yes). */
export function buyNo(
  exchange: Exchange,
  market: ExclusiveMarket,
  index: number,
  buyer: number,
  yesBuyer: number,
  price: string,
  shares: string,
): void {
  const where = { marketId: market.marketId, outcomeId: market.outcomeIds[index]!, yes: 0, no: 0 };
  const yesPrice = (1 - Number(price)).toFixed(2);
  exchange.accept(exchange.limit(yesBuyer, where, market.yes[index]!, "BUY", yesPrice, shares));
  exchange.accept(exchange.limit(buyer, where, market.no[index]!, "BUY", price, shares));
}

export function convert(
  userId: number,
  market: ExclusiveMarket,
  indexes: readonly number[],
  shares: string,
): ConvertPositionsCommand {
  return {
    type: "ConvertPositions",
    userId,
    marketId: market.marketId,
    outcomeIds: indexes.map((index) => market.outcomeIds[index]!),
    shares: atoms(shares),
  };
}
