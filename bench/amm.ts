// AMM benchmark, in process: trades per second through the exchange core's decide + evolve on
// one AMM market, and per-trade latency, side by side in the same run with a plain-number (float)
// FPMM that does the same trades with user cash and shares in Maps: the floor cost of the pool
// math and the bookkeeping without exact money, events, positions' cost basis or invariants.
// Bounded (a fixed number of trades) and self-stopping. Prints one JSON line at the end.
//
//   npm run bench:amm            (BENCH_TRADES=… to change the stream length)

import {
  type CommandContext,
  createExchangeDecider,
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeDecider,
  type ExchangeState,
  marketOrderCommand,
  stateHash,
} from "../src/core/exchange.js";

const tradesTotal = Number(process.env.BENCH_TRADES ?? 500_000);
const usersTotal = 1_000;
const liquidityAtoms = 1_000_000n * 100_000_000n;
const buyFeeBps = 100;
const sellFeeBps = 100;
const marketId = 1;
const outcomeId = 1;
const optionIds = [1, 2] as const;
const chunkSize = 256;

/** Deterministic PRNG (mulberry32) so every run sees the same stream. */
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

/** The stream, one column per field: BUY amounts or SELL shares in atoms. */
interface Steps {
  readonly user: Int32Array;
  readonly option: Uint8Array;
  readonly sell: Uint8Array;
  readonly atoms: BigInt64Array;
}

function setUp(decider: ExchangeDecider): { state: ExchangeState; sequence: bigint } {
  let state = decider.initialState();
  let sequence = 0n;
  const apply = (command: ExchangeCommand) => {
    const decision = decider.decide(state, command, { nowMs: 1, sequence: ++sequence });
    if (!decision.ok) throw new Error(`set-up refused: ${decision.rejection.code}`);
    for (const event of decision.events) state = decider.evolve(state, event);
  };
  apply(
    createMarketCommand({
      title: "AMM bench",
      modelType: "AMM",
      marketOrderPriceProtection: 100_000_000n,
      pool: { liquidity: liquidityAtoms, buyFeeBps, sellFeeBps },
    }),
  );
  apply({ type: "OpenMarket", marketId });
  for (let user = 1; user <= usersTotal; user++)
    apply({ type: "Deposit", userId: user, amount: 1_000_000n * 100_000_000n, txHash: `0x${user}` });
  return { state, sequence };
}

function command(steps: Steps, index: number): ExchangeCommand {
  const common = {
    userId: steps.user[index]!,
    marketId,
    outcomeId,
    optionId: optionIds[steps.option[index]!]!,
  };
  return steps.sell[index]
    ? marketOrderCommand({ ...common, side: "SELL", shares: steps.atoms[index]! })
    : marketOrderCommand({ ...common, side: "BUY", amount: steps.atoms[index]! });
}

/** 60% BUYs of 1–100 USDT, 40% SELLs of 10–100% of what the user holds, built against the core. */
function generateSteps(decider: ExchangeDecider, count: number): Steps {
  const next = random(20261122);
  const steps: Steps = {
    user: new Int32Array(count),
    option: new Uint8Array(count),
    sell: new Uint8Array(count),
    atoms: new BigInt64Array(count),
  };
  let { state, sequence } = setUp(decider);
  for (let index = 0; index < count; index++) {
    const user = 1 + Math.floor(next() * usersTotal);
    const option = next() < 0.5 ? 0 : 1;
    const held = state.accounts.get(user)?.positions.get(optionIds[option])?.shares ?? 0n;
    const sell = next() < 0.4 && held >= 10_000_000n;
    steps.user[index] = user;
    steps.option[index] = option;
    steps.sell[index] = sell ? 1 : 0;
    steps.atoms[index] = sell
      ? (held * BigInt(10 + Math.floor(next() * 91))) / 100n
      : BigInt(1 + Math.floor(next() * 100)) * 100_000_000n + BigInt(Math.floor(next() * 100_000_000));
    const decision = decider.decide(state, command(steps, index), { nowMs: 2, sequence: ++sequence });
    if (!decision.ok) throw new Error(`stream step ${index} refused: ${decision.rejection.code}`);
    for (const event of decision.events) state = decider.evolve(state, event);
  }
  return steps;
}

function runCore(
  decider: ExchangeDecider,
  steps: Steps,
  timed: boolean,
): { seconds: number; state: ExchangeState; rejected: number; latenciesMs: Float64Array | null } {
  let { state, sequence } = setUp(decider);
  const latenciesMs = timed ? new Float64Array(tradesTotal) : null;
  let rejected = 0;
  let elapsedMs = 0;
  const chunk: ExchangeCommand[] = [];
  for (let chunkStart = 0; chunkStart < tradesTotal; chunkStart += chunkSize) {
    const chunkEnd = Math.min(tradesTotal, chunkStart + chunkSize);
    chunk.length = 0;
    for (let index = chunkStart; index < chunkEnd; index++) chunk.push(command(steps, index));
    const started = performance.now();
    for (let index = chunkStart; index < chunkEnd; index++) {
      const before = latenciesMs === null ? 0 : performance.now();
      const context: CommandContext = { nowMs: 2, sequence: ++sequence };
      const decision = decider.decide(state, chunk[index - chunkStart]!, context);
      if (decision.ok) for (const event of decision.events) state = decider.evolve(state, event);
      else rejected++;
      if (latenciesMs !== null) latenciesMs[index] = performance.now() - before;
    }
    elapsedMs += performance.now() - started;
  }
  return { seconds: elapsedMs / 1_000, state, rejected, latenciesMs };
}

/** The same trades in JS numbers (USDT as floats): the FPMM formulas, cash and shares in Maps. */
function runFloat(steps: Steps): { seconds: number; balances: [number, number] } {
  const liquidity = Number(liquidityAtoms) / 1e8;
  const balances: [number, number] = [liquidity, liquidity];
  const cash = new Map<number, number>();
  const shares = new Map<number, number>();
  for (let user = 1; user <= usersTotal; user++) cash.set(user, 1_000_000);
  let fees = 0;
  const started = performance.now();
  for (let index = 0; index < tradesTotal; index++) {
    const user = steps.user[index]!;
    const option = steps.option[index]!;
    const other = 1 - option;
    const key = user * 2 + option;
    const quantity = Number(steps.atoms[index]!) / 1e8;
    if (steps.sell[index]) {
      // r = (sum − √(sum² − 4·s·other)) / 2, as the core, in floats.
      const own = balances[option]! + quantity;
      const sum = own + balances[other]!;
      const returned = (sum - Math.sqrt(sum * sum - 4 * quantity * balances[other]!)) / 2;
      const fee = (returned * sellFeeBps) / 10_000;
      balances[option] = own - returned;
      balances[other] = balances[other]! - returned;
      shares.set(key, (shares.get(key) ?? 0) - quantity);
      cash.set(user, cash.get(user)! + returned - fee);
      fees += fee;
    } else {
      const fee = (quantity * buyFeeBps) / 10_000;
      const invest = quantity - fee;
      const otherAfter = balances[other]! + invest;
      const ownAfter = (balances[option]! * balances[other]!) / otherAfter;
      const bought = balances[option]! + invest - ownAfter;
      balances[option] = ownAfter;
      balances[other] = otherAfter;
      shares.set(key, (shares.get(key) ?? 0) + bought);
      cash.set(user, cash.get(user)! - quantity);
      fees += fee;
    }
  }
  const seconds = (performance.now() - started) / 1_000;
  if (!(fees > 0)) throw new Error("float FPMM: no fees");
  return { seconds, balances };
}

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

const core = createExchangeDecider("fast");
const steps = generateSteps(core, tradesTotal);
const sells = steps.sell.reduce((sum, sell) => sum + sell, 0);

// Warm-up, then five passes of each from a fresh state (a shared 2-core machine moves by ±10%).
runCore(core, steps, false);
runFloat(steps);
const passes = 5;
const coreRuns = Array.from({ length: passes }, () => runCore(core, steps, false));
const floatRuns = Array.from({ length: passes }, () => runFloat(steps));
const coreLatency = runCore(core, steps, true).latenciesMs!.sort();
const first = coreRuns[0]!;
if (coreRuns.some((run) => run.rejected !== 0)) throw new Error("the core refused a trade of the stream");
if (coreRuns.some((run) => stateHash(run.state) !== stateHash(first.state)))
  throw new Error("passes of the core ended in different states");

// Sanity: the float FPMM did the same trades; its pool agrees with the core's to 1e-6.
const pool = first.state.pools.ammPools.get(outcomeId)!.balances;
const floatBalances = floatRuns[0]!.balances;
for (const index of [0, 1] as const) {
  const exact = Number(pool[index]) / 1e8;
  if (Math.abs(exact - floatBalances[index]) / exact > 1e-6)
    throw new Error(`float and exact pools differ: ${exact} vs ${floatBalances[index]}`);
}

const value = Math.round(tradesTotal / median(coreRuns.map((run) => run.seconds)));
const baseline = Math.round(tradesTotal / median(floatRuns.map((run) => run.seconds)));
console.error(
  JSON.stringify({
    trades: tradesTotal,
    mix: { buy: tradesTotal - sells, sell: sells },
    passes: {
      core: coreRuns.map((run) => Math.round(tradesTotal / run.seconds)),
      float: floatRuns.map((run) => Math.round(tradesTotal / run.seconds)),
    },
    pool: { exact: pool.map(String), float: floatBalances },
    hash: stateHash(first.state),
    node: process.version,
  }),
);
console.log(
  JSON.stringify({
    bench: "amm",
    unit: "trades/s",
    value,
    baseline: { name: "float-fpmm", value: baseline },
    ratio: round(value / baseline, 3),
    p50_ms: round(percentile(coreLatency, 0.5), 5),
    p99_ms: round(percentile(coreLatency, 0.99), 5),
  }),
);
