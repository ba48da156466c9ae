// A burst of connections larger than Node's default listen backlog (511) is held by the kernel and
// answered, never reset: the listeners listen with PREDEX_LISTEN_BACKLOG (default 4096). The
// engine's queue is made small so that most of the burst is refused with the engine's
// try-again-later (502/2002 and Retry-After), which is the answer an overloaded exchange owes.
// Bounded: 3,000 connections, each with one order, every socket closed by the end. With Node's
// default backlog the same burst on loopback had connections reset, or their requests lost by the
// kernel and cut off as too slow (408), by the hundreds. The kernel caps the backlog at
// net.core.somaxconn (4096 on Linux since 5.4).

import assert from "node:assert/strict";
import { connect, type Server, Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { signRequest } from "../../src/sdk/signer.js";
import { parseResponses } from "./raw-http.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

const burstConnections = 3_000;
const answerWithinMs = 60_000;
/** The kernel completes handshakes before the server accepts them; a reset one is never accepted. */
const acceptWithinMs = 10_000;

let platform: TradingPlatform;
let market: BinaryMarket;
before(async () => {
  platform = await startTradingPlatform({ platform: { engineLimits: { queueCommandsMax: 1 } } });
  market = await platform.openMarket();
});
after(() => platform.close());

interface Outcome {
  readonly status?: number;
  readonly code?: number;
  readonly retryAfter?: string;
  readonly error?: string;
}

describe("a burst of connections beyond Node's default listen backlog", () => {
  it("is answered on every connection (200, 400 or 502/2002), none reset", async () => {
    const buyer = await platform.fundedUser("100000");
    const session = buyer.client.sessionCookie!;
    const { hostname, port } = new URL(platform.addresses.gateway);
    const requests = Array.from({ length: burstConnections }, (_, index) => {
      const body = Buffer.from(
        JSON.stringify({
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: market.yes,
          side: "BUY",
          orderType: "LIMIT",
          limitPrice: 0.01,
          shares: 1,
          clientOrderId: `burst-${index}`,
        }),
      );
      const signed = signRequest(platform.partner, {
        method: "POST",
        path: "/ordering/create-order",
        body,
        cookie: session,
      });
      const head = [
        `POST ${signed.pathAndQuery} HTTP/1.1`,
        `host: ${hostname}:${port}`,
        "connection: close",
        `content-length: ${body.length}`,
        ...Object.entries(signed.headers).map(([name, value]) => `${name}: ${value}`),
        "",
        "",
      ].join("\r\n");
      return Buffer.concat([Buffer.from(head, "latin1"), body]);
    });
    const outcomes = await burst(platform.platform.apps.gateway.server, hostname, Number(port), requests);
    const tally = new Map<string, number>();
    for (const outcome of outcomes) {
      const key = outcome.error ?? `${outcome.status}/${outcome.code}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    const summary = JSON.stringify(Object.fromEntries(tally));
    assert.deepEqual(
      outcomes.filter((outcome) => outcome.error !== undefined),
      [],
      `every connection answered: ${summary}`,
    );
    for (const key of tally.keys()) assert.match(key, /^(200\/0|400\/1001|502\/2002)$/, summary);
    assert.ok((tally.get("502/2002") ?? 0) > 0, `the burst overflowed the engine's queue: ${summary}`);
    for (const outcome of outcomes) {
      if (outcome.status === 502) assert.match(outcome.retryAfter ?? "", /^[1-9][0-9]*$/);
    }
  });
});

/**
 * Opens every connection in one turn of the event loop (thousands of clients at once), waits
 * (bounded) until the server has accepted them, then writes every request in one synchronous loop,
 * so the server reads them together and the engine's queue overflows. Each connection reports its
 * answer or what broke it.
 */
async function burst(
  server: Server,
  host: string,
  port: number,
  requests: readonly Buffer[],
): Promise<Outcome[]> {
  const connectionsBefore = await connectionsOf(server);
  const opened = await Promise.all(
    requests.map(
      () =>
        new Promise<Socket | Outcome>((resolve) => {
          const socket = connect({ host, port }, () => resolve(socket));
          socket.once("error", (error: NodeJS.ErrnoException) =>
            resolve({ error: error.code ?? error.message }),
          );
        }),
    ),
  );
  const sockets = opened.filter((item): item is Socket => item instanceof Socket);
  const acceptDeadlineMs = Date.now() + acceptWithinMs;
  while (
    (await connectionsOf(server)) < connectionsBefore + sockets.length &&
    Date.now() < acceptDeadlineMs
  ) {
    await nextTurn();
  }
  const answers = opened.map((item) => (item instanceof Socket ? answerOf(item) : Promise.resolve(item)));
  requests.forEach((request, index) => {
    const item = opened[index];
    if (item instanceof Socket) item.write(request);
  });
  return Promise.all(answers);
}

function answerOf(socket: Socket): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(outcome);
    };
    socket.setTimeout(answerWithinMs, () => settle({ error: "no answer" }));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => settle({ error: error.code ?? error.message }));
    socket.on("end", () => {
      const [response] = parseResponses(Buffer.concat(chunks));
      if (response === undefined) return settle({ error: "closed without an answer" });
      settle({
        status: response.status,
        code: (JSON.parse(response.body) as { code: number }).code,
        retryAfter: response.headers.get("retry-after"),
      });
    });
  });
}

function connectionsOf(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}
