// The realtime fan-out's CPU per committed batch, in process (issue #31): the hub's commit listener
// (the batch summary, the books it re-reads, the user channels' part) and what it schedules (the
// publish rounds, the user channels' sends), without the engine, the store or real sockets.
//
// The stream is bench:orders' own: 128 funded users on one market, each pair buying Yes and No at
// 0.49/0.50/0.51 for 1–5 shares, so about every other order trades. The exchange core decides and
// evolves each batch outside the measured span; then the hub's listener gets the batch, as the
// engine would give it, and the event loop turns once so its timers and promises run. CPU is
// process.cpuUsage() over those spans only. Subscribers are fake sockets that take every frame.
//
// Three phases in alternation: `floor` (a listener that does nothing: the event-loop turn and the
// measuring itself, to subtract), `none` (no subscriber: what bench:orders runs) and `some` (each signed
// book channel of the outcome, market-price, /ws/market on both assets, and 4 of the 128 users on
// each of their four channels). The JSON line's value is the CPU µs a batch with no subscriber,
// its baseline the same with subscribers.
//
//   npm run bench:realtime-fanout   (BENCH_BATCHES=… batches a phase, BENCH_BATCH_ORDERS=… orders a batch)

import { EventEmitter } from "node:events";
import { pino } from "pino";
import {
  createExchangeDecider,
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  limitOrderCommand,
} from "../src/core/exchange.js";
import type { ExchangeEngine } from "../src/exchange/exchange-engine.js";
import { Subscriber } from "../src/realtime/fanout.js";
import { RealtimeHub, type UserChannel } from "../src/realtime/hub.js";
import { realtimeLimits } from "../src/realtime/limits.js";
import type { OrderRecord } from "../src/store/exchange-read-models.js";

const batchesPerPhase = Number(process.env.BENCH_BATCHES ?? 4_000);
const ordersPerBatch = Number(process.env.BENCH_BATCH_ORDERS ?? 8);
const phasesPerMode = 3;
const warmupBatches = 1_000;
const usersTotal = 128;
const subscribedUsers = [1, 2, 3, 4];
const marketId = 1;
const outcomeId = 1;
const yesOptionId = 1;
const noOptionId = 2;
const atomsPerUnit = 100_000_000n;
const atomsPerCent = 1_000_000n;
const pricesCents = [49n, 50n, 51n];

type Entry = {
  sequence: bigint;
  nowMs: number;
  command: ExchangeCommand;
  events: readonly ExchangeEvent[];
};
type Listener = (entries: readonly Entry[]) => void;

/** A socket that takes every frame at once (ws's pre-framed path included) and counts them. */
class SinkSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  frames = 0;
  readonly _sender = { _state: 0 };
  readonly _socket = {
    write: (_chunk: Buffer): boolean => {
      this.frames += 1;
      return true;
    },
  };
  send(_payload: Buffer, _options: unknown, written?: (error?: Error) => void): void {
    this.frames += 1;
    written?.();
  }
  close(): void {
    this.readyState = 3;
  }
  terminate(): void {
    this.readyState = 3;
  }
  ping(): void {}
}

const decider = createExchangeDecider("fast");
let state: ExchangeState = decider.initialState();
let sequence = 0n;
let nowMs = 1_795_000_000_000;
let stepIndex = 0;

function apply(command: ExchangeCommand): Entry {
  nowMs += 1;
  const decision = decider.decide(state, command, { nowMs, sequence: sequence + 1n });
  if (!decision.ok) return { sequence, nowMs, command, events: [] };
  sequence += 1n;
  for (const event of decision.events) state = decider.evolve(state, event);
  return { sequence, nowMs, command, events: decision.events };
}

/** The next order of the stream: bench:orders' client pairs, Yes then No, around 0.5. */
function nextOrder(): ExchangeCommand {
  const index = stepIndex++;
  const pair = index % (usersTotal / 2);
  const buysYes = Math.floor(index / (usersTotal / 2)) % 2 === 0;
  return limitOrderCommand({
    userId: 2 * pair + (buysYes ? 1 : 2),
    marketId,
    outcomeId,
    optionId: buysYes ? yesOptionId : noOptionId,
    side: "BUY",
    limitPrice: (buysYes ? pricesCents[index % 3]! : 100n - pricesCents[index % 3]!) * atomsPerCent,
    shares: BigInt(1 + (index % 5)) * atomsPerUnit,
  });
}

apply(createMarketCommand({ title: "Bench", makerFeeBps: 0, takerFeeBps: 10 }));
apply({ type: "OpenMarket", marketId });
for (let userId = 1; userId <= usersTotal; userId++)
  apply({ type: "Deposit", userId, amount: 10_000_000n * atomsPerUnit, txHash: `0x${userId}` });

let listener: Listener = () => undefined;
const engine = {
  phase: "running",
  onCommitted(added: Listener) {
    listener = added;
    return () => undefined;
  },
  read: <T>(reader: (s: ExchangeState, p: { sequence: bigint; nowMs: number }) => T): Promise<T> =>
    Promise.resolve(reader(state, { sequence, nowMs })),
};

function orderRecord(orderId: number): OrderRecord {
  const order = state.orders.get(orderId);
  return {
    orderId,
    userId: order?.userId ?? 1,
    marketId,
    outcomeId,
    optionId: yesOptionId,
    side: "BUY",
    orderType: "LIMIT",
    timeInForce: "GTC",
    limitPrice: 50n * atomsPerCent,
    shares: atomsPerUnit,
    amount: null,
    filledShares: 0n,
    filledAmount: 0n,
    feePaid: 0n,
    status: order === undefined ? "FILLED" : "OPEN",
    clientOrderId: null,
    expiresAtMs: null,
    createdAtMs: 0,
    updatedAtMs: 0,
  };
}

const hub = await RealtimeHub.start({
  engine: engine as unknown as ExchangeEngine,
  identity: {
    resolveSession: async (token: string) => ({ userId: Number(token) }),
  } as never,
  readModels: {
    orderById: async (orderId: number) => orderRecord(orderId),
    orders: async () => ({ records: [], total: 0 }),
  } as never,
  limits: realtimeLimits({}),
  logger: pino({ level: "silent" }),
});

const sinks: SinkSocket[] = [];
const unsubscribes: (() => void)[] = [];
function sink(): Subscriber {
  const socket = new SinkSocket();
  sinks.push(socket);
  return new Subscriber(socket as never, 64 * 1024 * 1024);
}

async function subscribeSome(): Promise<void> {
  const outcome = state.outcomes.get(outcomeId)!;
  const assets = outcome.optionIds.map((id) => state.options.get(id)!.assetId);
  unsubscribes.push(hub.addClobSubscriber(sink(), outcomeId, 0), hub.addClobSubscriber(sink(), outcomeId, 1));
  unsubscribes.push(hub.addMarketPriceSubscriber(sink(), marketId));
  const publicSocket = sink();
  const removePublic = hub.addPublicSocket(publicSocket);
  for (const assetId of assets) hub.subscribeAsset(publicSocket, assetId);
  unsubscribes.push(() => {
    removePublic();
    for (const assetId of assets) hub.unsubscribeAsset(publicSocket, assetId);
  });
  for (const userId of subscribedUsers) {
    for (const channel of ["info", "positions", "orders", "trades"] as UserChannel[]) {
      unsubscribes.push(
        await hub.addUserSubscription({
          channel,
          subscriber: sink(),
          userId,
          partnerId: 1,
          sessionToken: String(userId),
          marketId: null,
          pending: [],
          checking: false,
        }),
      );
    }
  }
}

function unsubscribeAll(): void {
  for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs `batches` batches; returns the fan-out's CPU µs of each (`floor`: a listener that does nothing). */
async function runBatches(batches: number, floor = false): Promise<Float64Array> {
  const deliver: Listener = floor ? () => undefined : listener;
  const costs = new Float64Array(batches);
  for (let batch = 0; batch < batches; batch++) {
    const entries: Entry[] = [];
    for (let order = 0; order < ordersPerBatch; order++) {
      const entry = apply(nextOrder());
      if (entry.events.length > 0) entries.push(entry);
    }
    const before = process.cpuUsage();
    deliver(entries);
    await turn();
    const spent = process.cpuUsage(before);
    costs[batch] = spent.user + spent.system;
  }
  return costs;
}

function summarize(costs: Float64Array[]): { meanUs: number; p50Us: number; p99Us: number } {
  const all = Float64Array.from(costs.flatMap((phase) => [...phase])).sort();
  const total = all.reduce((sum, value) => sum + value, 0);
  return {
    meanUs: total / all.length,
    p50Us: all[Math.floor(all.length * 0.5)]!,
    p99Us: all[Math.floor(all.length * 0.99)]!,
  };
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

await runBatches(warmupBatches);
const phases: Record<"floor" | "none" | "some", Float64Array[]> = { floor: [], none: [], some: [] };
for (let phase = 0; phase < phasesPerMode; phase++) {
  phases.floor.push(await runBatches(batchesPerPhase, true));
  phases.none.push(await runBatches(batchesPerPhase));
  await subscribeSome();
  phases.some.push(await runBatches(batchesPerPhase));
  unsubscribeAll();
  await turn();
}
hub.close();

const floor = summarize(phases.floor);
const none = summarize(phases.none);
const some = summarize(phases.some);
const framesSent = sinks.reduce((sum, socket) => sum + socket.frames, 0);
console.log(
  `fan-out CPU µs a batch of ${ordersPerBatch} orders (${batchesPerPhase} batches × ${phasesPerMode} phases each, ` +
    `sequence ${sequence}, ${state.orders.size} resting orders, ${framesSent} frames to subscribers)`,
);
console.log(
  `  floor (a listener doing nothing, one event-loop turn): mean ${round(floor.meanUs)}  p50 ${floor.p50Us}  p99 ${floor.p99Us}`,
);
console.log(`  no subscriber:    mean ${round(none.meanUs)}  p50 ${none.p50Us}  p99 ${none.p99Us}`);
console.log(`  some subscribers: mean ${round(some.meanUs)}  p50 ${some.p50Us}  p99 ${some.p99Us}`);
console.log(
  JSON.stringify({
    bench: "realtime-fanout",
    unit: "cpu_us_per_batch_without_subscribers",
    value: round(none.meanUs),
    baseline: { name: "cpu_us_per_batch_with_subscribers", value: round(some.meanUs) },
    ratio: round(none.meanUs / some.meanUs, 3),
    p50_ms: round(none.p50Us / 1000, 4),
    p99_ms: round(none.p99Us / 1000, 4),
  }),
);
