// Engine benchmark, in process: decide + evolve throughput and per-command latency of the
// exchange core on a realistic stream of resting, crossing, market and cancelling orders, side by
// side in the same run with the npm package nodejs-order-book on the same order stream.
// Bounded (a fixed number of commands) and self-stopping. Prints one JSON line at the end.
//
//   npm run bench:engine            (BENCH_COMMANDS=… to change the stream length)

import { OrderBook, Side } from "nodejs-order-book";
import {
  type CommandContext,
  createExchangeDecider,
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeDecider,
  type ExchangeState,
  limitOrderCommand,
  stateHash,
} from "../src/core/exchange.js";

const commandsTotal = Number(process.env.BENCH_COMMANDS ?? 1_000_000);
const sanityCommands = Math.min(20_000, commandsTotal);
const usersTotal = 1_000;
/** The generator cancels before the orders it believes resting exceed this. */
const liveOrdersMax = 10_000;
const marketId = 1;
const outcomeId = 1;
const yesOptionId = 1;
const noOptionId = 2;
const atomsPerUnit = 100_000_000n;
const atomsPerCent = 1_000_000n;

/** Deterministic PRNG (mulberry32) so every run and both books see the same stream. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The stream, one column per field so a million steps take a few megabytes and do not weigh on
 * the garbage collector while the engines run. Prices are on the Yes book, so a step maps to both
 * engines; `viaNo` expresses it on the No option instead (the mirror image).
 */
const stepLimit = 0;
const stepMarket = 1;
const stepCancel = 2;
interface Steps {
  readonly count: number;
  readonly kind: Uint8Array;
  /** Which side of the Yes book the order takes (1 = bid). */
  readonly bid: Uint8Array;
  readonly viaNo: Uint8Array;
  readonly yesCents: Int32Array;
  readonly shares: Int32Array;
  /** MARKET BUY budget in cents. */
  readonly amountCents: Int32Array;
  /** For a cancel: the index of the step whose order it cancels. */
  readonly target: Int32Array;
  readonly userId: Int32Array;
}

/**
 * Generates the stream while running it once on the fast core (untimed), so that every cancel
 * names an order that is really resting at that moment, as a real client's would.
 */
function generateSteps(count: number): Steps {
  const decider = createExchangeDecider("fast");
  const setup = setUp(decider);
  let state = setup.state;
  let sequence = setup.sequence;
  const orderIdOfStep = new Int32Array(count);
  const next = random(20_261_122);
  const steps: Steps = {
    count,
    kind: new Uint8Array(count),
    bid: new Uint8Array(count),
    viaNo: new Uint8Array(count),
    yesCents: new Int32Array(count),
    shares: new Int32Array(count),
    amountCents: new Int32Array(count),
    target: new Int32Array(count),
    userId: new Int32Array(count),
  };
  const live: number[] = [];
  let midCents = 50;
  for (let index = 0; index < count; index++) {
    if (next() < 0.01) midCents = Math.min(80, Math.max(20, midCents + (next() < 0.5 ? -1 : 1)));
    const bid = next() < 0.5;
    steps.userId[index] = 1 + Math.floor(next() * usersTotal);
    steps.bid[index] = bid ? 1 : 0;
    steps.viaNo[index] = next() < 0.5 ? 1 : 0;
    steps.shares[index] = 1 + Math.floor(next() * 100);
    const roll = next();
    // A realistic mix: mostly resting quotes, a steady flow of crossing orders, some market
    // orders, and cancels that keep the book near a steady size.
    let target = -1;
    if (live.length > liveOrdersMax || roll < 0.3) {
      while (target === -1 && live.length > 0) {
        const pick = Math.floor(next() * live.length);
        const candidate = live[pick]!;
        live[pick] = live[live.length - 1]!;
        live.pop();
        if (state.orders.has(orderIdOfStep[candidate]!)) target = candidate;
      }
    }
    if (target !== -1) {
      steps.kind[index] = stepCancel;
      steps.target[index] = target;
    } else if (roll < 0.8) {
      const away = 1 + Math.floor(next() * 8);
      steps.kind[index] = stepLimit;
      steps.yesCents[index] = bid ? midCents - away : midCents + away;
      live.push(index);
    } else if (roll < 0.95) {
      // Crossing orders mostly fill at once, so the generator does not pick them to cancel.
      const through = Math.floor(next() * 4);
      steps.kind[index] = stepLimit;
      steps.yesCents[index] = bid ? midCents + through : midCents - through;
    } else {
      steps.kind[index] = stepMarket;
      steps.yesCents[index] = midCents;
      steps.amountCents[index] = 100 + Math.floor(next() * 2_000);
    }
    const decision = decider.decide(state, commandOf(steps, index, orderIdOfStep), {
      nowMs: 1_000 + index,
      sequence: ++sequence,
    });
    if (decision.ok) {
      for (const event of decision.events) {
        if (event.type === "OrderPlaced") orderIdOfStep[index] = event.orderId;
        state = decider.evolve(state, event);
      }
    }
  }
  return steps;
}

/** The exchange command of one step; a cancel names the order its target step placed. */
function commandOf(steps: Steps, index: number, orderIdOfStep: Int32Array): ExchangeCommand {
  const kind = steps.kind[index];
  if (kind === stepCancel) {
    const target = steps.target[index]!;
    return { type: "CancelOrder", userId: steps.userId[target]!, orderId: orderIdOfStep[target]! };
  }
  const viaNo = steps.viaNo[index] === 1;
  const side = (steps.bid[index] === 1) !== viaNo ? "BUY" : "SELL";
  const isLimit = kind === stepLimit;
  const cents = viaNo ? 100 - steps.yesCents[index]! : steps.yesCents[index]!;
  const byAmount = !isLimit && side === "BUY";
  return {
    type: "PlaceOrder",
    userId: steps.userId[index]!,
    marketId,
    outcomeId,
    optionId: viaNo ? noOptionId : yesOptionId,
    side,
    orderType: isLimit ? "LIMIT" : "MARKET",
    limitPrice: isLimit ? priceAtomsOfCents[cents]! : null,
    shares: byAmount ? null : sharesAtomsOf[steps.shares[index]!]!,
    amount: byAmount ? BigInt(steps.amountCents[index]!) * atomsPerCent : null,
    timeInForce: isLimit ? "GTC" : "FAK",
    expiresAtMs: null,
    clientOrderId: null,
  };
}

const priceAtomsOfCents = Array.from({ length: 101 }, (_unused, cents) => BigInt(cents) * atomsPerCent);
const sharesAtomsOf = Array.from({ length: 101 }, (_unused, shares) => BigInt(shares) * atomsPerUnit);

/** A market, 1,000 funded users, each holding Yes and No shares to sell. Not timed. */
function setUp(decider: ExchangeDecider): { state: ExchangeState; sequence: bigint } {
  let state = decider.initialState();
  let sequence = 0n;
  const apply = (command: ExchangeCommand): void => {
    const decision = decider.decide(state, command, { nowMs: 1, sequence: ++sequence });
    if (!decision.ok) throw new Error(`setup refused: ${decision.rejection.code}`);
    for (const event of decision.events) state = decider.evolve(state, event);
  };
  apply(createMarketCommand({ title: "Bench", makerFeeBps: 0, takerFeeBps: 10 }));
  apply({ type: "OpenMarket", marketId });
  for (let userId = 1; userId <= usersTotal; userId++) {
    apply({ type: "Deposit", userId, amount: 10_000_000n * atomsPerUnit, txHash: `0x${userId}` });
  }
  // Mint 100,000 pairs between neighbours, twice, so everyone holds both options.
  for (const shift of [0, 1]) {
    for (let userId = 1; userId <= usersTotal; userId += 2) {
      const yesBuyer = userId + shift;
      const noBuyer = shift === 0 ? userId + 1 : userId;
      const pair = {
        marketId,
        outcomeId,
        side: "BUY",
        limitPrice: 50n * atomsPerCent,
        shares: 100_000n * atomsPerUnit,
      } as const;
      apply(
        limitOrderCommand({ ...pair, userId: yesBuyer > usersTotal ? 1 : yesBuyer, optionId: yesOptionId }),
      );
      apply(limitOrderCommand({ ...pair, userId: noBuyer, optionId: noOptionId }));
    }
  }
  return { state, sequence };
}

interface CoreRun {
  state: ExchangeState;
  seconds: number;
  latenciesMs: Float64Array | null;
  rejected: Record<string, number>;
  trades: number;
}

/** Steps are turned into commands a chunk at a time, outside the timed loop. */
const chunkSteps = 1024;

function runCore(decider: ExchangeDecider, steps: Steps, count: number, measureLatency: boolean): CoreRun {
  const setup = setUp(decider);
  let state = setup.state;
  let sequence = setup.sequence;
  const orderIdOfStep = new Int32Array(count);
  const latenciesMs = measureLatency ? new Float64Array(count) : null;
  const rejected: Record<string, number> = {};
  let trades = 0;
  let elapsedMs = 0;
  const commands: ExchangeCommand[] = [];
  const contexts: CommandContext[] = [];
  for (let chunkStart = 0; chunkStart < count; chunkStart += chunkSteps) {
    const chunkEnd = Math.min(count, chunkStart + chunkSteps);
    commands.length = 0;
    contexts.length = 0;
    for (let index = chunkStart; index < chunkEnd; index++) {
      // A cancel's target may lie in this chunk, so its id is filled in when it runs.
      commands.push(
        steps.kind[index] === stepCancel
          ? { type: "CancelOrder", userId: 0, orderId: 0 }
          : commandOf(steps, index, orderIdOfStep),
      );
      contexts.push({ nowMs: 1_000 + index, sequence: ++sequence });
    }
    const started = performance.now();
    for (let index = chunkStart; index < chunkEnd; index++) {
      let command = commands[index - chunkStart]!;
      if (command.type === "CancelOrder") command = commandOf(steps, index, orderIdOfStep);
      const before = latenciesMs === null ? 0 : performance.now();
      const decision = decider.decide(state, command, contexts[index - chunkStart]!);
      if (decision.ok) {
        const events = decision.events;
        for (let eventIndex = 0; eventIndex < events.length; eventIndex++) {
          const event = events[eventIndex]!;
          if (event.type === "OrderPlaced") orderIdOfStep[index] = event.orderId;
          else if (event.type === "TradeExecuted") trades++;
          state = decider.evolve(state, event);
        }
      } else {
        rejected[decision.rejection.code] = (rejected[decision.rejection.code] ?? 0) + 1;
      }
      if (latenciesMs !== null) latenciesMs[index] = performance.now() - before;
    }
    elapsedMs += performance.now() - started;
  }
  return { state, seconds: elapsedMs / 1_000, latenciesMs, rejected, trades };
}

interface PeerRun {
  seconds: number;
  latenciesMs: Float64Array | null;
}

/** The same stream on nodejs-order-book: one Yes-price book, prices as floats, ids as strings. */
function runPeer(steps: Steps, count: number, measureLatency: boolean): PeerRun {
  const book = new OrderBook();
  const latenciesMs = measureLatency ? new Float64Array(count) : null;
  let elapsedMs = 0;
  const ids: string[] = [];
  for (let chunkStart = 0; chunkStart < count; chunkStart += chunkSteps) {
    const chunkEnd = Math.min(count, chunkStart + chunkSteps);
    ids.length = 0;
    for (let index = chunkStart; index < chunkEnd; index++) ids.push(String(index));
    const started = performance.now();
    for (let index = chunkStart; index < chunkEnd; index++) {
      const before = latenciesMs === null ? 0 : performance.now();
      const side = steps.bid[index] === 1 ? Side.BUY : Side.SELL;
      switch (steps.kind[index]) {
        case stepLimit:
          book.limit({
            id: ids[index - chunkStart]!,
            side,
            size: steps.shares[index]!,
            price: steps.yesCents[index]! / 100,
          });
          break;
        case stepMarket: {
          const size =
            side === Side.BUY ? steps.amountCents[index]! / steps.yesCents[index]! : steps.shares[index]!;
          book.market({ side, size });
          break;
        }
        default:
          book.cancel(String(steps.target[index]));
      }
      if (latenciesMs !== null) latenciesMs[index] = performance.now() - before;
    }
    elapsedMs += performance.now() - started;
  }
  return { seconds: elapsedMs / 1_000, latenciesMs };
}

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

const fast = createExchangeDecider("fast");
const reference = createExchangeDecider("reference");
const steps = generateSteps(commandsTotal);

// Sanity: the reference book and the fast book reach the same state on a prefix of the stream.
const sanityFast = runCore(fast, steps, sanityCommands, false);
const sanityReference = runCore(reference, steps, sanityCommands, false);
const fastHash = stateHash(sanityFast.state);
const referenceHash = stateHash(sanityReference.state);
if (fastHash !== referenceHash)
  throw new Error(`fast and reference books differ: ${fastHash} vs ${referenceHash}`);

// Warm-up, then the measured runs: throughput without per-command timing, then latency.
runCore(fast, steps, Math.min(200_000, commandsTotal), false);
// BENCH_SKIP_PEER=1 leaves the peer out, for profiling the core alone.
const skipPeer = process.env.BENCH_SKIP_PEER === "1";
if (!skipPeer) runPeer(steps, Math.min(200_000, commandsTotal), false);
// Throughput is the median of several passes, each from a fresh state: on a shared 2-core machine a
// single pass moves by ±10%.
// The core's passes take about a second each, the peer's ten, hence five of one and three of the other.
const corePasses = 5;
const peerPasses = 3;
function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
const coreRuns = Array.from({ length: corePasses }, () => runCore(fast, steps, commandsTotal, false));
const core = coreRuns[0]!;
const coreSeconds = median(coreRuns.map((run) => run.seconds));
const peerSeconds = skipPeer
  ? Number.NaN
  : median(Array.from({ length: peerPasses }, () => runPeer(steps, commandsTotal, false).seconds));
const coreLatency = runCore(fast, steps, commandsTotal, true).latenciesMs!.sort();
const peerLatency = skipPeer ? new Float64Array(1) : runPeer(steps, commandsTotal, true).latenciesMs!.sort();

const value = Math.round(commandsTotal / coreSeconds);
const baseline = Math.round(commandsTotal / peerSeconds);
const kinds = { limit: 0, market: 0, cancel: 0 };
for (const kind of steps.kind) {
  if (kind === stepLimit) kinds.limit++;
  else if (kind === stepMarket) kinds.market++;
  else kinds.cancel++;
}
console.error(
  JSON.stringify({
    commands: commandsTotal,
    passes: { core: coreRuns.map((run) => Math.round(commandsTotal / run.seconds)) },
    mix: kinds,
    trades: core.trades,
    rejected: core.rejected,
    restingOrdersAtEnd: core.state.orders.size,
    sanity: { commands: sanityCommands, hash: fastHash, referenceHash },
    peer: { p50_ms: round(percentile(peerLatency, 0.5), 5), p99_ms: round(percentile(peerLatency, 0.99), 5) },
    node: process.version,
  }),
);
console.log(
  JSON.stringify({
    bench: "engine",
    unit: "commands/s",
    value,
    baseline: { name: "nodejs-order-book", value: baseline },
    ratio: round(value / baseline, 3),
    p50_ms: round(percentile(coreLatency, 0.5), 5),
    p99_ms: round(percentile(coreLatency, 0.99), 5),
  }),
);
