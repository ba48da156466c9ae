// The pool models' part of the canonical state encoding (codec.ts): terms by market id, AMM and
// parimutuel pools by outcome id, arrays in a fixed field order, bigints as decimal strings.
// Snapshots written before the pool models existed have none of these keys and decode to none.

import type { ExchangeState } from "../state.js";
import type { AmmPool, ParimutuelPool, PoolTerms } from "./models.js";

type Row = unknown[];

const text = (values: readonly bigint[]): string[] => values.map(String);
const pair = (values: unknown): readonly [bigint, bigint] => {
  const [first, second] = values as [string, string];
  return [BigInt(first), BigInt(second)];
};

function sortedByKey<T>(map: Map<number, T>): [number, T][] {
  return [...map.entries()].sort((a, b) => a[0] - b[0]);
}

function termsRow(terms: PoolTerms): Row {
  return terms.modelType === "AMM"
    ? [
        terms.modelType,
        String(terms.liquidity),
        text(terms.weights),
        terms.buyFeeBps,
        terms.sellFeeBps,
        text([terms.buyAmountMin, terms.buyAmountMax, terms.sellSharesMin, terms.sellSharesMax]),
      ]
    : [terms.modelType, terms.settlementFeeBps, text([terms.buyAmountMin, terms.buyAmountMax])];
}

function termsOf(row: Row): PoolTerms {
  if (row[0] === "AMM") {
    const [buyAmountMin, buyAmountMax, sellSharesMin, sellSharesMax] = (row[5] as string[]).map(BigInt);
    return {
      modelType: "AMM",
      liquidity: BigInt(row[1] as string),
      weights: pair(row[2]),
      buyFeeBps: row[3] as number,
      sellFeeBps: row[4] as number,
      buyAmountMin: buyAmountMin!,
      buyAmountMax: buyAmountMax!,
      sellSharesMin: sellSharesMin!,
      sellSharesMax: sellSharesMax!,
    };
  }
  const [buyAmountMin, buyAmountMax] = pair(row[2]);
  return { modelType: "parimutuel", settlementFeeBps: row[1] as number, buyAmountMin, buyAmountMax };
}

export function encodePools(state: ExchangeState): {
  poolTerms: Row[];
  ammPools: Row[];
  parimutuelPools: Row[];
} {
  const { pools } = state;
  return {
    poolTerms: sortedByKey(pools.terms).map(([marketId, terms]) => [marketId, termsRow(terms)]),
    ammPools: sortedByKey(pools.ammPools).map(([outcomeId, pool]) => [
      outcomeId,
      pool.marketId,
      text(pool.balances),
      text(pool.funderShares),
      String(pool.funded),
      String(pool.returned),
    ]),
    parimutuelPools: sortedByKey(pools.parimutuelPools).map(([outcomeId, pool]) => [
      outcomeId,
      pool.marketId,
      text(pool.stakes),
      pool.settlement === null
        ? null
        : text([
            pool.settlement.fee,
            pool.settlement.dust,
            pool.settlement.distributable,
            pool.settlement.winningStake,
          ]),
    ]),
  };
}

export function decodePools(state: ExchangeState, data: Record<string, unknown>): void {
  for (const [marketId, terms] of (data.poolTerms ?? []) as [number, Row][]) {
    state.pools.terms.set(marketId, termsOf(terms));
  }
  for (const [outcomeId, marketId, balances, funderShares, funded, returned] of (data.ammPools ??
    []) as Row[]) {
    const pool: AmmPool = {
      marketId: marketId as number,
      outcomeId: outcomeId as number,
      balances: pair(balances),
      funderShares: pair(funderShares),
      funded: BigInt(funded as string),
      returned: BigInt(returned as string),
    };
    state.pools.ammPools.set(pool.outcomeId, pool);
  }
  for (const [outcomeId, marketId, stakes, settlement] of (data.parimutuelPools ?? []) as Row[]) {
    const figures = settlement === null ? null : (settlement as string[]).map(BigInt);
    const pool: ParimutuelPool = {
      marketId: marketId as number,
      outcomeId: outcomeId as number,
      stakes: pair(stakes),
      settlement:
        figures === null
          ? null
          : { fee: figures[0]!, dust: figures[1]!, distributable: figures[2]!, winningStake: figures[3]! },
    };
    state.pools.parimutuelPools.set(pool.outcomeId, pool);
  }
}
