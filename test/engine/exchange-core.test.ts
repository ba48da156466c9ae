// The real exchange core run through the durable engine on SQLite: its commands and events survive
// the journal codec, its state codec is canonical, and replaying the journal (from nothing, and
// from a snapshot) rebuilds byte-identical state. The engine's own behaviour is tested with the
// accounts domain; this file only checks that the two fit.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  assertInvariants,
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
  limitOrderCommand,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import { encodePlainData } from "../../src/engine/journal-codec.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";

const directory = mkdtempSync(join(tmpdir(), "predex-engine-core-"));
after(() => rmSync(directory, { recursive: true, force: true }));

async function openExchange(path: string) {
  const db = openDatabase({ path });
  const engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, unknown>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
    limits: { snapshotEveryCommands: 25 },
    assertState: assertInvariants,
    clock: () => 1_800_000_000_000,
    onFatal: (error) => {
      throw error;
    },
  });
  return { db, engine };
}

const unit = 100_000_000n;

describe("engine with the exchange core", () => {
  it("journals the core's commands and rebuilds byte-identical state from the journal", async () => {
    const path = join(directory, "exchange.sqlite");
    const { db, engine } = await openExchange(path);
    const created = await engine.submit(createMarketCommand({ title: "Will it rain?" }));
    assert.ok(created.ok, encodePlainData(created));
    const market = created.events[0];
    assert.equal(market?.type, "MarketCreated");
    if (market?.type !== "MarketCreated") return;
    const outcome = market.outcomes[0]!;
    assert.ok((await engine.submit({ type: "OpenMarket", marketId: market.marketId })).ok);
    for (const userId of [1, 2, 3, 4]) {
      const deposit = await engine.submit({
        type: "Deposit",
        userId,
        amount: 1_000n * unit,
        txHash: `0x${userId}`,
      });
      assert.ok(deposit.ok, encodePlainData(deposit));
    }
    const orders: Promise<{ ok: boolean; events?: readonly ExchangeEvent[] }>[] = [];
    for (let index = 0; index < 120; index++) {
      const userId = (index % 4) + 1;
      const option = outcome.options[index % 2]!;
      orders.push(
        engine.submit(
          limitOrderCommand({
            userId,
            marketId: market.marketId,
            outcomeId: outcome.outcomeId,
            optionId: option.optionId,
            side: index % 3 === 0 ? "SELL" : "BUY",
            limitPrice: BigInt(30 + (index % 40)) * (unit / 100n),
            shares: BigInt(1 + (index % 5)) * unit,
          }),
        ),
      );
    }
    const results = await Promise.all(orders);
    const accepted = results.filter((result) => result.ok);
    const trades = accepted
      .flatMap((result) => result.events ?? [])
      .filter((event) => event.type === "TradeExecuted");
    assert.ok(accepted.length > 60, `most orders are accepted (${accepted.length})`);
    assert.ok(trades.length > 10, `orders cross (${trades.length} trades)`);
    const verification = await engine.verifyReplay();
    assert.ok(verification.identical, encodePlainData(verification));
    assert.ok(verification.snapshotReplayHash !== undefined);
    const live = await engine.read((state) => exchangeStateCodec.encode(state));
    db.close();

    const reopened = await openExchange(path);
    assert.equal(await reopened.engine.read((state) => exchangeStateCodec.encode(state)), live);
    reopened.db.close();
  });
});
