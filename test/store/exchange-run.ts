// Shared set-up of the read-model contract suites that drive the exchange through the real engine
// (on either store: exchange-store-harness.ts): open markets, funded users, a seeded random stream,
// and the per-user check that the balance row and the ledger's last entry match the core.

import assert from "node:assert/strict";
import { createMarketCommand, type ExchangeState } from "../../src/core/exchange.js";
import type { ExchangeRun, ExchangeTestEngine } from "./exchange-store-harness.js";

/** Mulberry32: a small seeded generator, so a random run is the same every time. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface OpenBinaryMarket {
  readonly marketId: number;
  readonly outcomeId: number;
  /** The Yes and No option ids. */
  readonly options: [number, number];
}

/** Creates a market of one binary outcome and opens it; both must be accepted. */
export async function createOpenMarket(
  engine: ExchangeTestEngine,
  fields: Parameters<typeof createMarketCommand>[0],
): Promise<OpenBinaryMarket> {
  const created = await engine.submit(createMarketCommand(fields));
  assert.ok(created.ok && created.events[0]?.type === "MarketCreated");
  const event = created.events[0];
  const outcome = event.outcomes[0]!;
  assert.ok((await engine.submit({ type: "OpenMarket", marketId: event.marketId })).ok);
  return {
    marketId: event.marketId,
    outcomeId: outcome.outcomeId,
    options: [outcome.options[0]!.optionId, outcome.options[1]!.optionId],
  };
}

/** Deposits `amount` to each of users 1..usersCount (txHash `0x<userId>`); each must be accepted. */
export async function fundUsers(
  engine: ExchangeTestEngine,
  usersCount: number,
  amount: bigint,
): Promise<void> {
  for (let userId = 1; userId <= usersCount; userId += 1) {
    assert.ok((await engine.submit({ type: "Deposit", userId, amount, txHash: `0x${userId}` })).ok);
  }
}

/** The user's balance row and the balances after its latest ledger entry both equal the core's account. */
export async function assertBalanceAndLedgerMatch(
  run: Pick<ExchangeRun, "balanceRow" | "readModels">,
  state: ExchangeState,
  userId: number,
): Promise<void> {
  const account = state.accounts.get(userId)!;
  const balance = await run.balanceRow(userId);
  assert.deepEqual(
    [balance?.available, balance?.frozen],
    [account.available, account.frozen],
    `user ${userId}`,
  );
  const ledger = await run.readModels.ledger(userId, { page: 1, pageSize: 1 });
  assert.deepEqual(
    [ledger.records[0]?.availableAfter, ledger.records[0]?.frozenAfter],
    [account.available, account.frozen],
  );
}
