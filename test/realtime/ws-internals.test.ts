// The fan-out writes frames it built once straight to the TCP socket of a ws WebSocket, through
// two private fields of ws 8 (`_socket`, `_sender._state`; src/realtime/fanout.ts). ws offers no
// public way to send bytes that are already a frame, so this test pins what the path relies on: the
// ws version it was written and measured against, the two fields on a live server-side socket, and
// that frames written that way reach a client intact, several messages in one write. When ws is
// upgraded, this test says whether the path still holds (docs/performance.md, "Pre-framed writes").

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { WebSocket, WebSocketServer } from "ws";
import { Subscriber, setPreFramedWrites, textFrame } from "../../src/realtime/fanout.js";

/** The ws versions the private path was checked against (ws 8.x; measured on 8.23.0). */
const wsVersionsChecked = /^8\.(1[8-9]|2[0-9])\.\d+$/;

describe("ws internals behind the pre-framed fan-out", () => {
  let server: WebSocketServer;
  let serverSide: Promise<WebSocket>;
  let url: string;

  before(async () => {
    server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    serverSide = new Promise((resolveSocket) => server.once("connection", resolveSocket));
    await new Promise<void>((resolveListening) => server.once("listening", () => resolveListening()));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    setPreFramedWrites(true);
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolveClosed) => server.close(() => resolveClosed()));
  });

  it("runs on a ws version the path was checked against", () => {
    const installed = JSON.parse(
      readFileSync(resolve(import.meta.dirname, "../../node_modules/ws/package.json"), "utf8"),
    ) as { version: string };
    assert.match(installed.version, wsVersionsChecked, `ws ${installed.version}: check fanout.ts's path`);
  });

  it("writes frames built once to the socket, several messages in one write, as ws frames them", async () => {
    const client = new WebSocket(url);
    const received: string[] = [];
    const allReceived = new Promise<void>((resolveAll) =>
      client.on("message", (data: Buffer) => {
        received.push(data.toString("utf8"));
        if (received.length === 4) resolveAll();
      }),
    );
    await new Promise((resolveOpen) => client.once("open", resolveOpen));
    const socket = await serverSide;

    // The two private fields, as fanout.ts reads them: the TCP socket, and an idle sender.
    const internals = socket as unknown as { _socket?: { write?: unknown }; _sender?: { _state?: unknown } };
    assert.equal(typeof internals._socket?.write, "function");
    assert.equal(internals._sender?._state, 0);

    const subscriber = new Subscriber(socket, 1024 * 1024);
    // Short, 16-bit and 64-bit length headers, in one write.
    const payloads = [Buffer.from('{"a":1}'), Buffer.alloc(300, "x"), Buffer.alloc(70_000, "y")];
    assert.equal(subscriber.sendFrames(Buffer.concat(payloads.map(textFrame)), payloads), true);
    // And the public path, for comparison: the same bytes arrive.
    setPreFramedWrites(false);
    assert.equal(subscriber.sendFrames(textFrame(payloads[0]!), [payloads[0]!]), true);
    setPreFramedWrites(true);

    await allReceived;
    assert.deepEqual(
      received,
      [...payloads, payloads[0]!].map((payload) => payload.toString("utf8")),
    );
    client.close();
  });
});
