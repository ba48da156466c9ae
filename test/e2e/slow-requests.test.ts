// Every listener bounds the time a client has to send its request, headers and body
// (PREDEX_REQUEST_TIMEOUT_MS, here shortened so the test is quick): a body trickled one byte at a
// time, or a head that never ends, is answered 408 in the listener's own envelope and its
// connection closed, instead of holding the connection for good.

import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import type { SurfaceName } from "../../src/server.js";
import { startTestPlatform, type TestPlatform } from "./harness.js";
import { openWire, readWire, type WireExchange } from "./raw-http.js";

const receiveMs = 800;
/** Far beyond the bound plus Node's check interval: a connection still open then was never bounded. */
const patienceMs = 6_000;
const surfaces: readonly SurfaceName[] = ["gateway", "public", "legacy", "admin"];

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform({ env: { PREDEX_REQUEST_TIMEOUT_MS: String(receiveMs) } });
});
after(() => platform.close());

/** Writes `first`, then one byte of `trickle` every 100 ms, until the server closes or time runs out. */
async function trickle(surface: SurfaceName, first: string, trickled: string): Promise<WireExchange> {
  const socket: Socket = await openWire(platform.addresses[surface]);
  const reading = readWire(socket, patienceMs);
  socket.write(first);
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || index >= trickled.length) return;
    socket.write(trickled[index++]!);
  }, 100);
  const exchange = await reading;
  clearInterval(timer);
  return exchange;
}

function host(surface: SurfaceName): string {
  return new URL(platform.addresses[surface]).host;
}

function assertTimedOut(surface: SurfaceName, exchange: WireExchange): void {
  assert.ok(exchange.closedByServer, `${surface}: the connection was still open after ${patienceMs} ms`);
  const [answer] = exchange.responses;
  assert.equal(answer?.status, 408, `${surface}: ${JSON.stringify(exchange)}`);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  if (surface === "legacy") {
    assert.deepEqual(body, {
      code: 408,
      msg: "request timeout",
      data: { errorCode: 408, timeoutMs: receiveMs },
    });
  } else {
    assert.deepEqual(body, {
      code: 1408,
      message: `request timeout: the request was not received within ${receiveMs} ms`,
      data: null,
    });
  }
}

describe("a request that arrives too slowly", () => {
  it("is cut off on every listener when its body trickles in", async () => {
    const exchanges = await Promise.all(
      surfaces.map((surface) =>
        trickle(
          surface,
          [
            "POST /anything HTTP/1.1",
            `host: ${host(surface)}`,
            "content-type: application/json",
            "content-length: 100000",
            "",
            "",
          ].join("\r\n"),
          "x".repeat(1_000),
        ),
      ),
    );
    for (const [index, surface] of surfaces.entries()) assertTimedOut(surface, exchanges[index]!);
  });

  it("is cut off on every listener when its head never ends", async () => {
    const exchanges = await Promise.all(
      surfaces.map((surface) =>
        trickle(surface, `GET /docs/json HTTP/1.1\r\nhost: ${host(surface)}\r\n`, "x-slow: ".repeat(200)),
      ),
    );
    for (const [index, surface] of surfaces.entries()) assertTimedOut(surface, exchanges[index]!);
  });
});
