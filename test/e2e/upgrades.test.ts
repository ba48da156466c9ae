// WebSocket upgrades on the signed host go through the gateway and the API-key check before any
// channel sees them. The realtime part registers its channels in `deps.socketChannels`, as the
// test channel here does.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { WebSocket, WebSocketServer } from "ws";
import { signWebSocketUpgrade } from "../../src/sdk/signer.js";
import { type PartnerCredentials, startTestPlatform, type TestPlatform } from "./harness.js";

let platform: TestPlatform;
let partner: PartnerCredentials;
const echoServer = new WebSocketServer({ noServer: true });

before(async () => {
  platform = await startTestPlatform();
  partner = await platform.createPartner();
  platform.platform.deps.socketChannels.set("/socket/test-echo", (request, socket, head, caller) => {
    echoServer.handleUpgrade(request, socket, head, (client) => {
      client.send(JSON.stringify({ merchantId: caller.merchantId }));
      client.close();
    });
  });
});
after(async () => {
  echoServer.close();
  await platform.close();
});

function socketUrl(pathAndQuery: string): string {
  return new URL(pathAndQuery, platform.addresses.gateway.replace(/^http/, "ws")).href;
}

/** Opens a socket and reports either its first message or the refused handshake's status and body. */
function open(pathAndQuery: string, headers: Record<string, string>) {
  return new Promise<{ message?: string; status?: number; body?: string }>((resolve, reject) => {
    const socket = new WebSocket(socketUrl(pathAndQuery), { headers });
    socket.on("message", (data) => resolve({ message: String(data) }));
    socket.on("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.on("error", reject);
  });
}

describe("WebSocket upgrades on the signed host", () => {
  it("hands a signed upgrade to its channel with the partner", async () => {
    const signed = signWebSocketUpgrade(partner, { path: "/socket/test-echo", query: { marketId: 1 } });
    const result = await open(signed.pathAndQuery, signed.headers);
    assert.deepEqual(JSON.parse(result.message ?? "null"), { merchantId: partner.merchantId });
  });

  it("refuses an unsigned upgrade with the gateway's 401 Invalid Key", async () => {
    assert.deepEqual(await open("/socket/test-echo", {}), { status: 401, body: "Invalid Key" });
  });

  it("refuses an upgrade whose signed cookie was changed with 400 Invalid Signature", async () => {
    const signed = signWebSocketUpgrade(partner, { path: "/socket/test-echo", cookie: "predex_session=a" });
    const result = await open(signed.pathAndQuery, { ...signed.headers, cookie: "predex_session=b" });
    assert.deepEqual(result, { status: 400, body: "Invalid Signature" });
  });

  it("refuses a wrong API key with 401/1401", async () => {
    const signed = signWebSocketUpgrade({ ...partner, apiKey: "pdx_wrong" }, { path: "/socket/test-echo" });
    const result = await open(signed.pathAndQuery, signed.headers);
    assert.equal(result.status, 401);
    assert.deepEqual(JSON.parse(result.body ?? ""), {
      code: 1401,
      message: "unauthorized: Invalid X-API-KEY",
      data: null,
    });
  });

  it("answers a signed upgrade to an unknown channel with 404/1404", async () => {
    const signed = signWebSocketUpgrade(partner, { path: "/socket/nothing-here" });
    const result = await open(signed.pathAndQuery, signed.headers);
    assert.equal(result.status, 404);
    assert.equal(JSON.parse(result.body ?? "").code, 1404);
  });
});
