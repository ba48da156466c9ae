// Market makers requoting through the SDK (issue #29 point 6): `makers` makers, each quoting
// `levelsPerSide` levels a side on each of `books` books and requoting all of them in a loop, once
// with the market makers' kit and once with single requests, in alternating phases of one run:
//
// - batches: one `cancel-all` pulls the maker's quotes, then `create-orders` calls of 20 place the
//   new ones (10 calls for 200 quotes), up to `requestsInFlightPerMaker` at a time;
// - single requests (the baseline): one `cancel-order` per quote, then one `create-order` per quote,
//   with the same number of requests in flight per maker.
//
// Every quote is a post-only LIMIT GTC BUY with a clientOrderId, as the SDK sends it; the fair price
// moves a tick every round, so each round's quotes differ from the last, and no quote ever crosses
// another (bids stay below asks across makers). Headline: quotes placed per second with batches;
// baseline: the same work with single requests; p50/p99: one maker's whole requote round (pull and
// place every quote). Server CPU per quote: the server process's CPU time during the batch phases
// over the quotes they placed (the pulls included).
//
// The platform runs in a child process (real startPlatform: signatures and nonces checked, SQLite WAL
// with synchronous=FULL, group commit, read models projected in each commit) and the makers here,
// through PredexClient over real sockets on loopback. Bounded by phase durations and a round cap.
// The last line of stdout is the JSON result.

import type { CreateOrderRequest } from "../src/sdk/index.js";
import { createOrdersItemsMax, type GatewayCredentials, PredexClient } from "../src/sdk/index.js";
import { createBenchPartner, createOpenBenchMarket, registerBenchUser } from "./lib/platform-fixtures.js";
import {
  type BenchServer,
  cpuProfileFlags,
  isServerProcess,
  serveTargets,
  startBenchPlatform,
  withBenchServer,
} from "./lib/server-process.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const makers = Number(process.env.BENCH_MAKERS ?? 4);
const books = 20;
const levelsPerSide = 5;
const quotesPerRound = books * levelsPerSide * 2;
/** Requests a maker has in flight at most, in both modes. */
const requestsInFlightPerMaker = 10;
const sharesPerQuote = 10;
const depositPerMakerUsdt = 1_000_000n;
const warmupMs = 1_500;
const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 5_000);
/** Phases of each mode, alternating batches, single, batches, single, … */
const phasesPerMode = Number(process.env.BENCH_PHASE_PAIRS ?? 2);
/** A phase stops at this many rounds per maker even if time is left. */
const roundsPerPhaseMax = 1_000;

interface Book {
  readonly marketId: string;
  readonly outcomeId: string;
  readonly yes: string;
  readonly no: string;
}

interface Targets {
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  readonly books: Book[];
  /** One session cookie per maker. */
  readonly cookies: string[];
}

type Mode = "batches" | "single";

interface Maker {
  readonly client: PredexClient;
  readonly index: number;
  /** The ids of the quotes resting now (known from the answers that placed them). */
  resting: string[];
  rounds: number;
}

interface PhaseResult {
  readonly mode: Mode;
  readonly quotes: number;
  readonly requests: number;
  readonly elapsedMs: number;
  readonly serverCpuUs: number;
  readonly clientCpuUs: number;
  readonly roundLatenciesMs: number[];
  readonly failures: string[];
}

if (isServerProcess()) await serve();
else await measure();

/** Child process: a partner, `books` open order books and funded makers with sessions. */
async function serve(): Promise<void> {
  const bench = await startBenchPlatform("predex-bench-maker-");
  const { deps } = bench.platform;
  const partner = await createBenchPartner(deps);
  const created: Book[] = [];
  for (let index = 0; index < books; index += 1) {
    const { outcomes, marketId } = await createOpenBenchMarket(deps, {
      title: `Bench book ${index}`,
      outcomeName: `Book ${index}`,
      details: { categoryId: "1" },
    });
    const outcome = outcomes[0]!;
    created.push({
      marketId: String(marketId),
      outcomeId: String(outcome.outcomeId),
      yes: String(outcome.options[0]!.optionId),
      no: String(outcome.options[1]!.optionId),
    });
  }
  const cookies: string[] = [];
  for (let index = 0; index < makers; index += 1) {
    const user = await registerBenchUser(deps, partner, {
      userEmail: `maker${index}@example.com`,
      marchantUserId: `maker-${index}`,
    });
    const deposited = await deps.engine.submit({
      type: "Deposit",
      userId: user.userId,
      amount: depositPerMakerUsdt * 100_000_000n,
      txHash: `0xmaker${index}`,
    });
    if (!deposited.ok) throw new Error("could not fund a maker");
    cookies.push(`predex_session=${user.sessionToken}`);
  }
  const targets: Targets = {
    baseUrl: bench.platform.addresses.gateway,
    credentials: partner.credentials,
    books: created,
    cookies,
  };
  serveTargets(targets, bench.close);
}

async function measure(): Promise<void> {
  await withBenchServer<Targets>(import.meta.url, cpuProfileFlags(), async (server) => {
    const { targets } = server;
    const team: Maker[] = targets.cookies.map((cookie, index) => {
      // No retries: a failure is counted, never hidden behind a second attempt.
      const client = new PredexClient({
        baseUrl: targets.baseUrl,
        credentials: targets.credentials,
        retry: { attemptsMax: 1, delayMsBase: 0, delayMsMax: 0 },
      });
      client.sessionCookie = cookie;
      return { client, index, resting: [], rounds: 0 };
    });

    // BENCH_MODES=batches profiles the batches alone (with BENCH_CPU_PROF); no JSON line then.
    const modes = (process.env.BENCH_MODES ?? "batches,single").split(",") as Mode[];
    for (const mode of modes) await runPhase(server, team, mode, warmupMs);
    const phases: PhaseResult[] = [];
    for (let pair = 0; pair < phasesPerMode; pair += 1) {
      for (const mode of modes) phases.push(await runPhase(server, team, mode, phaseMs));
    }
    // Leave the book empty: the server is stopped next, but a clean end shows the pulls work.
    await Promise.all(team.map((maker) => maker.client.cancelAll()));

    const batches = summarize(phases.filter((phase) => phase.mode === "batches"));
    const single = summarize(phases.filter((phase) => phase.mode === "single"));
    const failures = phases.flatMap((phase) => phase.failures);
    console.log(
      "mode      quotes/s  requests/s  round p50 ms  round p99 ms  server CPU µs/quote  client CPU µs/quote",
    );
    for (const [name, summary] of [
      ["batches", batches],
      ["single", single],
    ] as const) {
      console.log(
        `${name.padEnd(8)} ${summary.quotesPerSecond.toFixed(0).padStart(9)} ${summary.requestsPerSecond.toFixed(0).padStart(11)} ${summary.roundP50Ms.toFixed(1).padStart(13)} ${summary.roundP99Ms.toFixed(1).padStart(13)} ${summary.serverCpuUsPerQuote.toFixed(1).padStart(20)} ${summary.clientCpuUsPerQuote.toFixed(1).padStart(19)}`,
      );
    }
    if (!modes.includes("single")) return;
    if (failures.length > 0) {
      throw new Error(
        `${failures.length} requests or quotes failed, e.g. ${failures.slice(0, 3).join("; ")}`,
      );
    }
    console.log(
      JSON.stringify({
        bench: "maker",
        unit: "quotes/s",
        value: Math.round(batches.quotesPerSecond),
        baseline: {
          name: "single requests (cancel-order + create-order per quote), same run",
          value: Math.round(single.quotesPerSecond),
        },
        ratio: round(batches.quotesPerSecond / single.quotesPerSecond, 3),
        p50_ms: round(batches.roundP50Ms, 3),
        p99_ms: round(batches.roundP99Ms, 3),
        server_cpu_us_per_quote: round(batches.serverCpuUsPerQuote, 1),
        baseline_server_cpu_us_per_quote: round(single.serverCpuUsPerQuote, 1),
        client_cpu_us_per_quote: round(batches.clientCpuUsPerQuote, 1),
        baseline_p50_ms: round(single.roundP50Ms, 3),
        baseline_p99_ms: round(single.roundP99Ms, 3),
        requests_per_quote: round(batches.requests / batches.quotes, 3),
        baseline_requests_per_quote: round(single.requests / single.quotes, 3),
        makers,
        books,
        levels_per_side: levelsPerSide,
        quotes_per_round: quotesPerRound,
      }),
    );
  });
}

/** Every maker requotes all its books, round after round, until the phase's time is up. */
async function runPhase(
  server: BenchServer<Targets>,
  team: readonly Maker[],
  mode: Mode,
  durationMs: number,
): Promise<PhaseResult> {
  const cpuBeforeUs = await server.serverCpuUs();
  const clientBefore = process.cpuUsage();
  const startedAt = performance.now();
  const deadline = startedAt + durationMs;
  const roundLatenciesMs: number[] = [];
  const failures: string[] = [];
  let quotes = 0;
  let requests = 0;
  await Promise.all(
    team.map(async (maker) => {
      for (let round = 0; round < roundsPerPhaseMax && performance.now() < deadline; round += 1) {
        const began = performance.now();
        const done = await requote(server.targets, maker, mode, failures);
        roundLatenciesMs.push(performance.now() - began);
        quotes += done.quotes;
        requests += done.requests;
      }
    }),
  );
  const elapsedMs = performance.now() - startedAt;
  const client = process.cpuUsage(clientBefore);
  const serverCpuUs = (await server.serverCpuUs()) - cpuBeforeUs;
  process.stderr.write(
    `${mode} phase of ${Math.round(elapsedMs)} ms: ${quotes} quotes, ${Math.round((quotes * 1_000) / elapsedMs)} quotes/s, server CPU ${(serverCpuUs / Math.max(1, quotes)).toFixed(1)} µs/quote\n`,
  );
  return {
    mode,
    quotes,
    requests,
    elapsedMs,
    serverCpuUs,
    clientCpuUs: client.user + client.system,
    roundLatenciesMs,
    failures,
  };
}

/** One round of one maker: pull every quote, place the new ladder on every book. */
async function requote(
  targets: Targets,
  maker: Maker,
  mode: Mode,
  failures: string[],
): Promise<{ quotes: number; requests: number }> {
  maker.rounds += 1;
  const ladder = ladderOf(targets, maker);
  const placed: string[] = [];
  let requests = 0;
  const failed = (what: string) => (error: unknown) => {
    failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  };
  if (mode === "batches") {
    requests += 1;
    await maker.client.cancelAll().catch(failed("cancel-all"));
    const batches: CreateOrderRequest[][] = [];
    for (let first = 0; first < ladder.length; first += createOrdersItemsMax) {
      batches.push(ladder.slice(first, first + createOrdersItemsMax));
    }
    requests += batches.length;
    await inFlight(batches, async (batch) => {
      const answer = await maker.client.createOrders(batch).catch(failed("create-orders"));
      for (const result of answer?.results ?? []) {
        if (result.ok) placed.push(result.order.orderId);
        else failures.push(`quote refused: ${result.code} ${result.message}`);
      }
    });
  } else {
    requests += maker.resting.length + ladder.length;
    await inFlight(maker.resting, async (orderId) => {
      await maker.client.cancelOrder(orderId).catch(failed("cancel-order"));
    });
    await inFlight(ladder, async (quote) => {
      const order = await maker.client.createOrder(quote).catch(failed("create-order"));
      if (order !== undefined) placed.push(order.orderId);
    });
  }
  maker.resting = placed;
  return { quotes: placed.length, requests };
}

/** Runs `work` on each item with at most requestsInFlightPerMaker at a time. */
async function inFlight<Item>(items: readonly Item[], work: (item: Item) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next]!;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(requestsInFlightPerMaker, items.length) }, worker));
}

/**
 * A maker's quotes for this round: on every book, `levelsPerSide` bids (BUY Yes) below the fair
 * price and as many asks (BUY No at 1 − the ask) above it, a tick apart. The fair price is 0.50 or
 * 0.51 in turn, so every round moves every quote and no bid of any maker reaches any ask.
 */
function ladderOf(targets: Targets, maker: Maker): CreateOrderRequest[] {
  const fairTicks = 50 + (maker.rounds % 2);
  const quotes: CreateOrderRequest[] = [];
  for (const [bookIndex, book] of targets.books.entries()) {
    for (let level = 0; level < levelsPerSide; level += 1) {
      for (const side of ["bid", "ask"] as const) {
        const yesTicks = side === "bid" ? fairTicks - 1 - level : fairTicks + 1 + level;
        quotes.push({
          marketId: book.marketId,
          outcomeId: book.outcomeId,
          optionId: side === "bid" ? book.yes : book.no,
          side: "BUY",
          orderType: "LIMIT",
          timeInForce: "GTC",
          limitPrice: (side === "bid" ? yesTicks : 100 - yesTicks) / 100,
          shares: sharesPerQuote,
          postOnly: true,
          clientOrderId: `m${maker.index}-r${maker.rounds}-b${bookIndex}-${side}${level}`,
        });
      }
    }
  }
  return quotes;
}

function summarize(phases: readonly PhaseResult[]) {
  const quotes = phases.reduce((sum, phase) => sum + phase.quotes, 0);
  const requests = phases.reduce((sum, phase) => sum + phase.requests, 0);
  const elapsedMs = phases.reduce((sum, phase) => sum + phase.elapsedMs, 0);
  const latencies = phases.flatMap((phase) => phase.roundLatenciesMs).sort((a, b) => a - b);
  return {
    quotes,
    requests,
    quotesPerSecond: (quotes * 1_000) / elapsedMs,
    requestsPerSecond: (requests * 1_000) / elapsedMs,
    roundP50Ms: percentileOfSorted(latencies, 50),
    roundP99Ms: percentileOfSorted(latencies, 99),
    serverCpuUsPerQuote: phases.reduce((sum, phase) => sum + phase.serverCpuUs, 0) / Math.max(1, quotes),
    clientCpuUsPerQuote: phases.reduce((sum, phase) => sum + phase.clientCpuUs, 0) / Math.max(1, quotes),
  };
}
