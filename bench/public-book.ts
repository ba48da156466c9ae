// What the Polymarket-compatible GET /book of the public listener costs, against the signed host's
// GET /orderbook/book on the same book in the same run: one order-book market with 100 levels a
// side (tick 0.001), read by 16 keep-alive clients. The target is ratio ≥ 1: the public
// read, with no signature or session to check, must not be slower than the signed one.
//
// As in bench:gateway, the platform runs in a child process and the load generator here, and the
// two routes are measured in alternating phases so drift on a shared machine hits both alike.
// Before measuring, the two answers are compared once (the same levels, the same hash), so the
// figures are of routes that agree. Loopback only, bounded by phase durations and a request cap;
// BENCH_PHASE_MS shortens the phases. The last line of stdout is the JSON result.

import { Agent, request } from "node:http";
import { formatGatewayDate } from "../src/contract/signing/string-to-sign.js";
import { limitOrderCommand } from "../src/core/commands.js";
import { type GatewayCredentials, signRequest } from "../src/sdk/signer.js";
import { measurePhase, type PhaseResult, sendExpectingCodeZero, sendForStatus } from "./lib/load.js";
import { createBenchPartner, registerBenchUser } from "./lib/platform-fixtures.js";
import {
  cpuProfileFlags,
  isServerProcess,
  serveTargets,
  startBenchPlatform,
  withBenchServer,
} from "./lib/server-process.js";
import { round, summarizePhases } from "./lib/summary.js";

const connections = 16;
const warmupMs = 1_000;
const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 2_000);
const phasesPerMode = 4;
const requestsPerPhaseMax = 2_000_000;
const levelsPerSide = 100;
const atomsPerUnit = 100_000_000n;
/** 0.001 in atoms: a tick fine enough for 100 levels on each side of the book. */
const tickAtoms = 100_000n;

interface Targets {
  readonly publicUrl: string;
  readonly gatewayUrl: string;
  readonly credentials: GatewayCredentials;
  readonly cookie: string;
  readonly marketId: string;
  readonly outcomeId: string;
  readonly assetId: string;
}

if (isServerProcess()) await serve();
else await measure();

/** Child process: one platform with a 100-level-a-side book and a user session to sign with. */
async function serve(): Promise<void> {
  const bench = await startBenchPlatform("predex-bench-public-book-");
  const { deps } = bench.platform;
  const submit = async (command: Parameters<typeof deps.engine.submit>[0]) => {
    const decision = await deps.engine.submit(command);
    if (!decision.ok) throw new Error(`the bench set-up was refused: ${JSON.stringify(decision.rejection)}`);
    return decision.events;
  };
  const partner = await createBenchPartner(deps);
  const reader = await registerBenchUser(deps, partner, {
    userEmail: "reader@example.com",
    marchantUserId: "reader",
  });
  const [created] = await submit({
    type: "CreateMarket",
    title: "Bench book",
    modelType: "orderbook",
    outcomes: [{ name: "Bench", options: null }],
    tickSize: tickAtoms,
    minOrderSize: null,
    makerFeeBps: 10,
    takerFeeBps: 20,
    marketOrderPriceProtection: null,
    limitOrderPriceProtection: null,
    startTimeMs: Date.now() - 60_000,
    endTimeMs: Date.now() + 86_400_000,
    creatorId: null,
    details: { categoryId: "1" },
  });
  if (created?.type !== "MarketCreated") throw new Error("could not create the bench market");
  const marketId = created.marketId;
  await submit({ type: "OpenMarket", marketId });
  const outcome = created.outcomes[0]!;
  const [yes, no] = outcome.options;
  await submit({
    type: "Deposit",
    userId: reader.userId,
    amount: 1_000_000n * atomsPerUnit,
    txHash: "0xbench-book",
  });
  // Yes bids at 0.300 … 0.399 and, by BUY No at 0.300 … 0.399, Yes asks at 0.601 … 0.700.
  for (let level = 0; level < levelsPerSide; level += 1) {
    const limitPrice = 300n * tickAtoms + BigInt(level) * tickAtoms;
    const shares = BigInt(level + 1) * atomsPerUnit;
    const fields = {
      userId: reader.userId,
      marketId,
      outcomeId: outcome.outcomeId,
      side: "BUY" as const,
      limitPrice,
      shares,
    };
    await submit(limitOrderCommand({ ...fields, optionId: yes!.optionId }));
    await submit(limitOrderCommand({ ...fields, optionId: no!.optionId }));
  }
  const assetId = await deps.engine.read((state) => state.options.get(yes!.optionId)!.assetId);
  const targets: Targets = {
    publicUrl: bench.platform.addresses.public,
    gatewayUrl: bench.platform.addresses.gateway,
    credentials: partner.credentials,
    cookie: `predex_session=${reader.sessionToken}`,
    marketId: String(marketId),
    outcomeId: String(outcome.outcomeId),
    assetId,
  };
  serveTargets(targets, bench.close);
}

type Mode = "public" | "signed";

async function measure(): Promise<void> {
  await withBenchServer<Targets>(import.meta.url, cpuProfileFlags(), async (server) => {
    const { targets } = server;
    const agent = new Agent({ keepAlive: true, maxSockets: connections });
    await checkAgreement(targets, agent);
    const measureMode = (mode: Mode, durationMs: number) =>
      measurePhase(
        server,
        mode === "public" ? publicLoad(targets, agent, durationMs) : signedLoad(targets, agent, durationMs),
      );
    await measureMode("signed", warmupMs);
    await measureMode("public", warmupMs);
    const results: Record<Mode, PhaseResult[]> = { public: [], signed: [] };
    for (let pair = 0; pair < phasesPerMode; pair += 1) {
      results.signed.push(await measureMode("signed", phaseMs));
      results.public.push(await measureMode("public", phaseMs));
    }
    agent.destroy();

    const publicBook = summarizePhases(results.public);
    const signedBook = summarizePhases(results.signed);
    if (publicBook.failures + signedBook.failures > 0) {
      throw new Error(`${publicBook.failures + signedBook.failures} requests did not answer 200`);
    }
    process.stderr.write(
      `GET /book (public):          ${publicBook.perSecond.toFixed(0)} req/s (p50 ${publicBook.p50Ms.toFixed(2)} ms, p99 ${publicBook.p99Ms.toFixed(2)} ms), server CPU ${publicBook.cpuUsPerRequest.toFixed(1)} us/req\n` +
        `GET /orderbook/book (signed): ${signedBook.perSecond.toFixed(0)} req/s (p50 ${signedBook.p50Ms.toFixed(2)} ms, p99 ${signedBook.p99Ms.toFixed(2)} ms), server CPU ${signedBook.cpuUsPerRequest.toFixed(1)} us/req\n`,
    );
    console.log(
      JSON.stringify({
        bench: "public-book",
        unit: "requests/s",
        value: Math.round(publicBook.perSecond),
        baseline: { name: "signed GET /orderbook/book", value: Math.round(signedBook.perSecond) },
        ratio: round(publicBook.perSecond / signedBook.perSecond, 3),
        p50_ms: round(publicBook.p50Ms, 3),
        p99_ms: round(publicBook.p99Ms, 3),
        baseline_p99_ms: round(signedBook.p99Ms, 3),
        server_cpu_us_per_request: round(publicBook.cpuUsPerRequest, 1),
        baseline_server_cpu_us_per_request: round(signedBook.cpuUsPerRequest, 1),
        cpu_ratio: round(signedBook.cpuUsPerRequest / publicBook.cpuUsPerRequest, 3),
        levels_per_side: levelsPerSide,
        connections,
      }),
    );
  });
}

function publicPath(targets: Targets): string {
  return `/book?token_id=${targets.assetId}`;
}

function signedQuery(targets: Targets) {
  return { marketId: targets.marketId, outcomeId: targets.outcomeId };
}

/** The signed request's headers, re-signed once per second (the date's resolution), as bench:gateway does. */
function signedHeaders(targets: Targets): () => Record<string, string> {
  let signedFor = "";
  let headers: Record<string, string> = {};
  return () => {
    const date = formatGatewayDate(new Date());
    if (date !== signedFor) {
      signedFor = date;
      headers = {
        ...signRequest(targets.credentials, {
          method: "GET",
          path: "/orderbook/book",
          query: signedQuery(targets),
          cookie: targets.cookie,
          // No nonce: the same headers are sent for a second.
          nonce: false,
        }).headers,
        cookie: targets.cookie,
      };
    }
    return headers;
  };
}

function publicLoad(targets: Targets, agent: Agent, durationMs: number) {
  const url = new URL(publicPath(targets), targets.publicUrl);
  return {
    clients: connections,
    durationMs,
    requestsMax: requestsPerPhaseMax,
    prepare: () => undefined,
    send: async () => (await sendForStatus(url, { method: "GET", headers: {} }, agent)) === 200,
  };
}

function signedLoad(targets: Targets, agent: Agent, durationMs: number) {
  const url = new URL(`/orderbook/book?${new URLSearchParams(signedQuery(targets))}`, targets.gatewayUrl);
  const headers = signedHeaders(targets);
  return {
    clients: connections,
    durationMs,
    requestsMax: requestsPerPhaseMax,
    prepare: () => undefined,
    send: () => sendExpectingCodeZero(url, { method: "GET", headers: headers() }, agent),
  };
}

function getJson(url: URL, headers: Record<string, string>, agent: Agent): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: "GET", headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
    });
    sent.on("error", reject);
    sent.end();
  });
}

type Level = { price: string; size: string };

/** The two routes must answer the same book (Polymarket lists each side best last) with the same hash. */
async function checkAgreement(targets: Targets, agent: Agent): Promise<void> {
  const publicBook = (await getJson(new URL(publicPath(targets), targets.publicUrl), {}, agent)) as {
    bids: Level[];
    asks: Level[];
    hash: string;
  };
  const signed = (await getJson(
    new URL(`/orderbook/book?${new URLSearchParams(signedQuery(targets))}`, targets.gatewayUrl),
    signedHeaders(targets)(),
    agent,
  )) as { data: { bids: Level[]; asks: Level[]; hash: string } };
  const same =
    publicBook.bids.length === levelsPerSide &&
    publicBook.asks.length === levelsPerSide &&
    JSON.stringify(publicBook.bids) === JSON.stringify([...signed.data.bids].reverse()) &&
    JSON.stringify(publicBook.asks) === JSON.stringify([...signed.data.asks].reverse()) &&
    publicBook.hash === signed.data.hash;
  if (!same) throw new Error("GET /book and GET /orderbook/book disagree; the figures would mean nothing");
}
