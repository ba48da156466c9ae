// The catalogue under load: signed `GET /markets/list` and `GET /markets/{id}/detail` requests per
// second, p50/p99, with 1,000 open markets and 50 concurrent keep-alive clients, in one run.
//
// The platform runs in a child process (real startPlatform: gateway signatures verified, SQLite
// WAL, the catalogue's caches and click counting as in production) and the load generator here, so
// that on a 2-core machine each gets a core. List requests walk pages 1–10 (pageSize 10); detail
// requests pick a random market of the 1,000, and each one counts a click (written once a second).
// Every request's signature is verified in full by the server; the generator signs each distinct
// path once per second (the `date` header's resolution) to keep its own CPU out of the figures.
// The operations are measured in alternating phases so machine drift hits them alike. A third,
// signed `GET /user/{id}` (one SQLite read, a tiny envelope), shows the floor of any signed route
// on the same server in the same run.
// Loopback only, bounded by phase durations and a request cap. The last line of stdout is the JSON.

import { Agent } from "node:http";
import { formatGatewayDate } from "../src/contract/signing/string-to-sign.js";
import { type GatewayCredentials, signRequest } from "../src/sdk/signer.js";
import { type ClientLoad, measurePhase, type PhaseResult, sendExpectingCodeZero } from "./lib/load.js";
import { createBenchPartner, createOpenBenchMarket, registerBenchUser } from "./lib/platform-fixtures.js";
import { isServerProcess, serveTargets, startBenchPlatform, withBenchServer } from "./lib/server-process.js";
import { round, summarizePhases } from "./lib/summary.js";

const marketCount = 1_000;
const categoryCount = 10;
const clients = 50;
const listPagesWalked = 10;
const warmupMs = 1_000;
const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 2_000);
const phasesPerOperation = 3;
const requestsPerPhaseMax = 1_000_000;

type Operation = "list" | "detail" | "user";

interface Targets {
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  readonly marketIds: string[];
  readonly userId: string;
}

if (isServerProcess()) await serve();
else await measure();

/** Child process: one platform with a partner, categories and 1,000 open markets. */
async function serve(): Promise<void> {
  const bench = await startBenchPlatform("predex-bench-catalogue-");
  const { deps } = bench.platform;
  const partner = await createBenchPartner(deps);
  const user = await registerBenchUser(deps, partner, {
    userEmail: "bench@example.com",
    marchantUserId: "bench",
  });
  const categoryIds: string[] = [];
  for (let index = 0; index < categoryCount; index += 1) {
    const category = await deps.categories.create({
      name: `Category ${index}`,
      names: { "zh-CN": `类别 ${index}` },
    });
    if (!category.ok) throw new Error("could not create a category");
    categoryIds.push(String(category.value.id));
  }
  const marketIds: string[] = [];
  const submissions = Array.from({ length: marketCount }, async (_unused, index) => {
    const market = await createOpenBenchMarket(deps, {
      title: `Bench market ${index}: will team ${index} win the final?`,
      outcomeName: `Team ${index}`,
      details: {
        categoryId: categoryIds[index % categoryCount]!,
        description: `Market number ${index} of the catalogue benchmark`,
        tags: `bench,team${index}`,
        outcomes: [],
      },
    });
    marketIds.push(String(market.marketId));
  });
  await Promise.all(submissions);
  const targets: Targets = {
    baseUrl: bench.platform.addresses.gateway,
    credentials: partner.credentials,
    marketIds,
    userId: String(user.userId),
  };
  serveTargets(targets, bench.close);
}

async function measure(): Promise<void> {
  await withBenchServer<Targets>(import.meta.url, [], async (server) => {
    const agent = new Agent({ keepAlive: true, maxSockets: clients });
    const signer = createPathSigner(server.targets.credentials);
    const measureOperation = (operation: Operation, durationMs: number) =>
      measurePhase(server, operationLoad(server.targets, signer, agent, operation, durationMs));

    await measureOperation("list", warmupMs);
    await measureOperation("detail", warmupMs);
    await measureOperation("user", warmupMs);
    const results: Record<Operation, PhaseResult[]> = { list: [], detail: [], user: [] };
    for (let cycle = 0; cycle < phasesPerOperation; cycle += 1) {
      results.list.push(await measureOperation("list", phaseMs));
      results.detail.push(await measureOperation("detail", phaseMs));
      results.user.push(await measureOperation("user", phaseMs));
    }
    agent.destroy();

    const list = summarizePhases(results.list);
    const detail = summarizePhases(results.detail);
    const user = summarizePhases(results.user);
    const failures = list.failures + detail.failures + user.failures;
    if (failures > 0) throw new Error(`${failures} requests did not answer 200 / code 0`);
    console.log("operation                      clients   req/s    p50 ms   p99 ms  server CPU µs/req");
    for (const [name, summary] of [
      ["GET /markets/list", list],
      ["GET /markets/{id}/detail", detail],
      ["GET /user/{id} (floor)", user],
    ] as const) {
      console.log(
        `${name.padEnd(30)} ${String(clients).padStart(7)} ${summary.perSecond.toFixed(0).padStart(7)} ${summary.p50Ms.toFixed(2).padStart(8)} ${summary.p99Ms.toFixed(2).padStart(8)} ${summary.cpuUsPerRequest.toFixed(1).padStart(18)}`,
      );
    }
    console.log(
      JSON.stringify({
        bench: "catalogue",
        unit: "requests/s",
        value: Math.round(list.perSecond),
        baseline: { name: "detail", value: Math.round(detail.perSecond) },
        ratio: round(list.perSecond / detail.perSecond, 3),
        p50_ms: round(list.p50Ms, 3),
        p99_ms: round(list.p99Ms, 3),
        detail_p50_ms: round(detail.p50Ms, 3),
        detail_p99_ms: round(detail.p99Ms, 3),
        server_cpu_us_per_list: round(list.cpuUsPerRequest, 1),
        server_cpu_us_per_detail: round(detail.cpuUsPerRequest, 1),
        signed_floor: {
          name: "GET /user/{id}",
          value: Math.round(user.perSecond),
          server_cpu_us: round(user.cpuUsPerRequest, 1),
        },
        markets: marketCount,
        clients,
      }),
    );
  });
}

type PathSigner = (
  path: string,
  query?: Record<string, string>,
) => { path: string; headers: Record<string, string> };

/** Signs each distinct request once per second (the date header's resolution). */
function createPathSigner(credentials: GatewayCredentials): PathSigner {
  let signedFor = "";
  const cache = new Map<string, { path: string; headers: Record<string, string> }>();
  return (path, query) => {
    const date = formatGatewayDate(new Date());
    if (date !== signedFor) {
      signedFor = date;
      cache.clear();
    }
    const key = query === undefined ? path : `${path}?${new URLSearchParams(query)}`;
    let signed = cache.get(key);
    if (signed === undefined) {
      // No nonce: the same headers are sent for a second.
      const request = signRequest(credentials, {
        method: "GET",
        path,
        ...(query === undefined ? {} : { query }),
        nonce: false,
      });
      signed = { path: request.pathAndQuery, headers: request.headers };
      cache.set(key, signed);
    }
    return signed;
  };
}

/** `clients` clients sending one operation's signed GETs, each answered 200 with code 0 or counted a failure. */
function operationLoad(
  targets: Targets,
  signer: PathSigner,
  agent: Agent,
  operation: Operation,
  durationMs: number,
): ClientLoad<{ path: string; headers: Record<string, string> }> {
  return {
    clients,
    durationMs,
    requestsMax: requestsPerPhaseMax,
    // Each client starts its walk of the list pages at its own index, so the clients spread over them.
    prepare: (clientIndex, sequence) =>
      operation === "list"
        ? signer("/markets/list", {
            page: String(1 + ((clientIndex + sequence) % listPagesWalked)),
            pageSize: "10",
          })
        : operation === "detail"
          ? signer(
              `/markets/${targets.marketIds[Math.floor(Math.random() * targets.marketIds.length)]}/detail`,
            )
          : signer(`/user/${targets.userId}`),
    send: (signed) =>
      sendExpectingCodeZero(
        new URL(signed.path, targets.baseUrl),
        { method: "GET", headers: signed.headers },
        agent,
      ),
  };
}
