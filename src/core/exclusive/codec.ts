// Exclusive markets' part of the canonical state encoding (codec.ts): [marketId, retired No shares,
// advance] by market id, bigints as decimal strings. The key is left out when there are none, so
// states without exclusive markets encode exactly as before they existed.

import type { ExchangeState } from "../state.js";

type Row = [number, string, string];

export function encodeExclusiveMarkets(state: ExchangeState): { exclusiveMarkets?: Row[] } {
  if (state.exclusiveMarkets.size === 0) return {};
  return {
    exclusiveMarkets: [...state.exclusiveMarkets.values()]
      .sort((a, b) => a.marketId - b.marketId)
      .map((exclusive) => [
        exclusive.marketId,
        String(exclusive.retiredNoShares),
        String(exclusive.conversionAdvance),
      ]),
  };
}

export function decodeExclusiveMarkets(state: ExchangeState, data: Record<string, unknown>): void {
  for (const [marketId, retired, advance] of (data.exclusiveMarkets ?? []) as Row[]) {
    state.exclusiveMarkets.set(marketId, {
      marketId,
      retiredNoShares: BigInt(retired),
      conversionAdvance: BigInt(advance),
    });
  }
}
