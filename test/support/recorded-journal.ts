// A journal as a real engine writes it, for benches and tests that replay it into stores
// (bench/order-storage.ts, bench/pg-projection.ts, test/store/sqlite/kept-rows.test.ts): an engine
// on in-memory SQLite with no read models, recording each commit's entries as it batched them; a
// market created and opened on it; and a bounded submit loop that keeps a number of commands in
// flight, so the batches are the sizes the engine cuts under that load.

import {
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { Engine, type EngineLimits } from "../../src/engine/engine.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";

export type Entry = JournalEntry<ExchangeCommand, ExchangeEvent>;
export type RecordingEngine = Engine<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>;

export interface JournalRecorder {
  readonly engine: RecordingEngine;
  /** Each commit's entries, in commit order. */
  readonly batches: Entry[][];
  /** Closes the engine and its database; the batches stay. */
  close(): Promise<void>;
}

/** An engine on in-memory SQLite whose one projector records the entries; its clock counts up by 1 ms. */
export async function openJournalRecorder(limits: Partial<EngineLimits> = {}): Promise<JournalRecorder> {
  const batches: Entry[][] = [];
  const db = openDatabase({ path: ":memory:" });
  let nowMs = 1_800_000_000_000;
  const engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
    projectors: [(_db, entries) => void batches.push([...entries])],
    clock: () => nowMs++,
    limits,
    onFatal: (error) => {
      throw error;
    },
  });
  return {
    engine,
    batches,
    async close() {
      await engine.close();
      db.close();
    },
  };
}

export interface OpenBinaryMarket {
  readonly marketId: number;
  readonly outcomeId: number;
  /** The outcome's two options (Yes, No). */
  readonly options: readonly [number, number];
}

/** Creates a binary market (maker fee 10 bps, taker 30) and opens it. */
export async function createOpenMarket(engine: RecordingEngine, title: string): Promise<OpenBinaryMarket> {
  const created = await engine.submit(createMarketCommand({ title, makerFeeBps: 10, takerFeeBps: 30 }));
  const event = created.ok ? created.events[0] : undefined;
  if (event?.type !== "MarketCreated") throw new Error("the market was refused");
  const outcome = event.outcomes[0]!;
  await engine.submit({ type: "OpenMarket", marketId: event.marketId });
  return {
    marketId: event.marketId,
    outcomeId: outcome.outcomeId,
    options: [outcome.options[0]!.optionId, outcome.options[1]!.optionId],
  };
}

/** Runs `submit(0)` … `submit(count - 1)` with at most `inFlight` unsettled at a time; bounded by `count`. */
export async function submitBounded(
  count: number,
  inFlight: number,
  submit: (index: number) => Promise<unknown>,
): Promise<void> {
  const pending = new Set<Promise<unknown>>();
  for (let index = 0; index < count; index += 1) {
    const tracked: Promise<unknown> = submit(index).finally(() => pending.delete(tracked));
    pending.add(tracked);
    if (pending.size >= inFlight) await Promise.race(pending);
  }
  await Promise.all(pending);
}
