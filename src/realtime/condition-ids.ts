// Polymarket names a binary market (a "condition") by a 0x-prefixed 32-byte id. predex's binary unit
// is the outcome, so each outcome gets one: the `market` of /book, /markets and every /ws/market
// event. It is derived from its market and outcome ids alone: nothing is stored, ids never change
// after creation, and a replayed journal allocates the same ids, so the condition id is stable
// across restarts (docs/decisions.md, "Polymarket-compatible public reads").

import { createHash } from "node:crypto";
import type { ExchangeState } from "../core/exchange.js";

const conditionIdPattern = /^0x[0-9a-f]{64}$/;

/** keccak is Ethereum's hash; any fixed 256-bit hash serves an id, and sha256 is in node:crypto. */
function hexDigest(label: string): string {
  return `0x${createHash("sha256").update(label).digest("hex")}`;
}

/** Hashed ids by outcome id; a pure function of the ids, so one memo serves every platform in the process. */
const memo = new Map<string, string>();
const memoEntriesMax = 100_000;

export function conditionIdOf(marketId: number, outcomeId: number): string {
  const key = `${marketId}:${outcomeId}`;
  let conditionId = memo.get(key);
  if (conditionId === undefined) {
    if (memo.size >= memoEntriesMax) memo.clear();
    conditionId = hexDigest(`predex:condition:${key}`);
    memo.set(key, conditionId);
  }
  return conditionId;
}

/** Polymarket's question_id, the oracle's name for the question: derived the same way, another label. */
export function questionIdOf(marketId: number, outcomeId: number): string {
  return hexDigest(`predex:question:${marketId}:${outcomeId}`);
}

/**
 * Polymarket's neg_risk_market_id: one id for every question of a neg-risk event, which is a predex
 * exclusive market (DESIGN §10), derived from the market id alone as the others are.
 */
export function negRiskMarketIdOf(marketId: number): string {
  return hexDigest(`predex:neg-risk-market:${marketId}`);
}

/**
 * Condition id → outcome id. Outcomes are only ever added, so the index catches up on a miss by
 * hashing the outcomes it has not seen yet; a lookup of an unknown id costs one pass over new ones.
 */
export class ConditionIndex {
  readonly #outcomeIds = new Map<string, number>();
  readonly #conditionIds = new Map<number, string>();

  conditionIdOf(marketId: number, outcomeId: number): string {
    let conditionId = this.#conditionIds.get(outcomeId);
    if (conditionId === undefined) {
      conditionId = conditionIdOf(marketId, outcomeId);
      this.#conditionIds.set(outcomeId, conditionId);
      this.#outcomeIds.set(conditionId, outcomeId);
    }
    return conditionId;
  }

  /** The outcome a condition id names, or undefined (also for text that is not a condition id). */
  outcomeIdOf(state: Readonly<ExchangeState>, conditionId: string): number | undefined {
    const normalized = conditionId.toLowerCase();
    if (!conditionIdPattern.test(normalized)) return undefined;
    const known = this.#outcomeIds.get(normalized);
    if (known !== undefined) return known;
    if (this.#conditionIds.size === state.outcomes.size) return undefined;
    for (const outcome of state.outcomes.values()) this.conditionIdOf(outcome.marketId, outcome.outcomeId);
    return this.#outcomeIds.get(normalized);
  }
}
