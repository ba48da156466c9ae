// What must hold of every exclusive market after every command (exclusive-market.ts): an order-book
// market of two outcomes or more; while unfinished, its advance is exactly what its retired No
// shares will pay back, B × (n − 1); once finished, nothing is owed any more. The per-outcome
// "Yes outstanding = No outstanding + retired" and money conservation with the advance are checked
// with every other market's in ../invariants.ts.

import { isFinished } from "../lifecycle/settlement.js";
import type { ExchangeState } from "../state.js";

export function checkExclusiveMarkets(state: ExchangeState): string[] {
  const problems: string[] = [];
  for (const exclusive of state.exclusiveMarkets.values()) {
    const market = state.markets.get(exclusive.marketId);
    if (market === undefined) {
      problems.push(`exclusive market ${exclusive.marketId} does not exist`);
      continue;
    }
    if (market.modelType !== "orderbook" || market.outcomeIds.length < 2)
      problems.push(`market ${market.marketId}: exclusive but not an orderbook of two outcomes or more`);
    if (exclusive.retiredNoShares < 0n) problems.push(`market ${market.marketId}: negative retired shares`);
    const owed = isFinished(market) ? 0n : exclusive.retiredNoShares * BigInt(market.outcomeIds.length - 1);
    if (exclusive.conversionAdvance !== owed)
      problems.push(`market ${market.marketId}: conversion advance ${exclusive.conversionAdvance} ≠ ${owed}`);
  }
  return problems;
}
