// bench:snapshot — what a snapshot costs the event loop at a large state: 100,000 funded users and
// 1,000,000 resting orders (BUY Yes bids on 20 order books, 10 per user), built in-process through
// the core's decider. Measures the inline snapshot's parts (encode, sha256, the SQLite write) and
// the event loop pause of the inline snapshot the engine writes. Bounded: one state, a few repetitions.
//
//   npm run bench:snapshot [-- --users 100000 --orders-per-user 10]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  createMarketCommand,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
  limitOrderCommand,
} from "../src/core/exchange.js";
import { makeSnapshot } from "../src/engine/recovery.js";
import { openDatabase } from "../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../src/store/sqlite/engine-store.js";

const { values } = parseArgs({
  options: {
    users: { type: "string", default: "100000" },
    "orders-per-user": { type: "string", default: "10" },
    books: { type: "string", default: "20" },
    repeat: { type: "string", default: "3" },
  },
});
const usersCount = Number(values.users);
const ordersPerUser = Number(values["orders-per-user"]);
const booksCount = Number(values.books);
const repeat = Number(values.repeat);

const cent = 1_000_000n;
const usdt = 100_000_000n;

function buildState(): ExchangeState {
  let state = exchangeDecider.initialState();
  let sequence = 0n;
  const nowMs = 1_800_000_000_000;
  const run = (command: Parameters<typeof exchangeDecider.decide>[1]) => {
    sequence += 1n;
    const decision = exchangeDecider.decide(state, command, { nowMs, sequence });
    if (!decision.ok) throw new Error(`refused: ${decision.rejection.code}`);
    for (const event of decision.events) state = exchangeDecider.evolve(state, event);
    return decision.events;
  };
  const books: { marketId: number; outcomeId: number; yes: number }[] = [];
  for (let book = 0; book < booksCount; book++) {
    const [created] = run(createMarketCommand({ title: `bench ${book}` }));
    if (created?.type !== "MarketCreated") throw new Error("no market");
    run({ type: "OpenMarket", marketId: created.marketId });
    const outcome = created.outcomes[0]!;
    books.push({
      marketId: created.marketId,
      outcomeId: outcome.outcomeId,
      yes: outcome.options[0]!.optionId,
    });
  }
  for (let userId = 1; userId <= usersCount; userId++) {
    run({ type: "Deposit", userId, amount: 1_000n * usdt, txHash: `0x${userId}` });
    for (let index = 0; index < ordersPerUser; index++) {
      const book = books[(userId * ordersPerUser + index) % books.length]!;
      run(
        limitOrderCommand({
          userId,
          marketId: book.marketId,
          outcomeId: book.outcomeId,
          optionId: book.yes,
          side: "BUY",
          // Bids only, 0.01 … 0.49: nothing crosses, everything rests.
          limitPrice: BigInt(1 + ((userId + index) % 49)) * cent,
          shares: BigInt(1 + (index % 5)) * usdt,
        }),
      );
    }
  }
  return state;
}

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

const building = timed(buildState);
const state = building.value;
const directory = mkdtempSync(join(tmpdir(), "predex-bench-snapshot-"));
try {
  const db = openDatabase({ path: join(directory, "predex.db") });
  const store = new SqliteEngineStore(db);
  const encodeMs: number[] = [];
  const hashMs: number[] = [];
  const writeMs: number[] = [];
  const inlineMs: number[] = [];
  let bytes = 0;
  for (let round = 0; round < repeat; round++) {
    const encoded = timed(() => exchangeStateCodec.encode(state));
    encodeMs.push(encoded.ms);
    bytes = Buffer.byteLength(encoded.value);
    const snapshot = timed(() =>
      makeSnapshot(exchangeStateCodec, { state, sequence: BigInt(round + 1), nowMs: 0 }),
    );
    // makeSnapshot encodes again, then hashes: its time less a second encode is the hash.
    const hashed = timed(() => makeSnapshot(exchangeStateCodec, { state, sequence: 0n, nowMs: 0 }).hash);
    hashMs.push(Math.max(0, hashed.ms - encoded.ms));
    inlineMs.push(snapshot.ms);
    const started = performance.now();
    await store.saveSnapshot(snapshot.value);
    writeMs.push(performance.now() - started);
  }
  const decodeMs = timed(() => exchangeStateCodec.decode(exchangeStateCodec.encode(state))).ms;
  db.close();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const pauseMs = median(inlineMs) + median(writeMs);
  console.log(
    JSON.stringify({
      bench: "snapshot",
      unit: "snapshots/s (1000 / event-loop pause ms)",
      value: Math.round((1000 / pauseMs) * 1000) / 1000,
      baseline: {
        name: "inline encode + sha256 + SQLite write",
        value: Math.round((1000 / pauseMs) * 1000) / 1000,
      },
      ratio: 1,
      p50_ms: Math.round(pauseMs),
      p99_ms: Math.round(Math.max(...inlineMs) + Math.max(...writeMs)),
      users: usersCount,
      restingOrders: state.orders.values().length,
      snapshotBytes: bytes,
      encodeMs: Math.round(median(encodeMs)),
      sha256Ms: Math.round(median(hashMs)),
      sqliteWriteMs: Math.round(median(writeMs)),
      decodeMs: Math.round(decodeMs),
      buildSeconds: Math.round(building.ms / 100) / 10,
    }),
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
