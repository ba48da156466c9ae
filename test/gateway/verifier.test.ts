// The verifier on its own: a fixed clock, an in-memory key table, and WebSocket upgrades over a
// real socket (the realtime part calls verifyUpgrade and writeGatewayRejectionToSocket).

import assert from "node:assert/strict";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import {
  type AppKeyRecord,
  createGatewayVerifier,
  dateSkewMsMax,
  type GatewayRejection,
  type GatewayRequest,
  gatewayRejectionResponse,
  nonceWindowMs,
  writeGatewayRejectionToSocket,
} from "../../src/gateway/verifier.js";
import { signRequest, signWebSocketUpgrade } from "../../src/sdk/signer.js";
import { MemoryNonceWindow, type NonceStore } from "../../src/store/gateway-nonces.js";

const credentials = { appKey: "app-1", appSecret: "secret-1", apiKey: "pdx_1" };
const keyRecord: AppKeyRecord = { appKey: "app-1", appSecret: "secret-1", partnerId: 7 };
const nowMs = Date.UTC(2026, 10, 22, 10, 0, 0);

function verifier(clockMs = nowMs, nonces?: NonceStore) {
  return createGatewayVerifier({
    lookupAppKey: async (appKey) => (appKey === keyRecord.appKey ? keyRecord : undefined),
    nowMs: () => clockMs,
    ...(nonces === undefined ? {} : { nonces }),
  });
}

function signedGet(path: string, extra: { nonce?: string | false; date?: Date } = {}): GatewayRequest {
  const signed = signRequest(credentials, { method: "GET", path, date: new Date(nowMs), ...extra });
  return { method: "GET", url: signed.pathAndQuery, headers: signed.headers, rawBody: undefined };
}

describe("verifier", () => {
  it("accepts a signed request and names the partner", async () => {
    const verdict = await verifier().verify(signedGet("/user/1"));
    assert.deepEqual(verdict, { ok: true, appKey: keyRecord });
  });

  it("accepts a date exactly 15 minutes off and refuses one a second further", async () => {
    assert.equal((await verifier(nowMs + dateSkewMsMax).verify(signedGet("/x"))).ok, true);
    const late = await verifier(nowMs + dateSkewMsMax + 1000).verify(signedGet("/x"));
    assert.equal(
      !late.ok && late.rejection.kind === "invalid_signature" && late.rejection.reason,
      "date-skew",
    );
  });

  it("refuses a replay 30 minutes after the first use when the date passes both times", async () => {
    // Dated 15 minutes ahead of the first use and 15 minutes behind the replay: both pass the date
    // check (inclusive), so the nonce must still be held at the window's last millisecond.
    const nonces = new MemoryNonceWindow(nonceWindowMs);
    const request = signedGet("/x", { nonce: "n-edge" });
    assert.equal((await verifier(nowMs - dateSkewMsMax, nonces).verify(request)).ok, true);
    const replay = await verifier(nowMs - dateSkewMsMax + nonceWindowMs, nonces).verify(request);
    assert.deepEqual(replay, {
      ok: false,
      rejection: { kind: "nonce_rejected", message: "unauthorized: Nonce already used" },
    });
    // A millisecond later the date check refuses it: the window is long enough and no longer.
    const later = await verifier(nowMs - dateSkewMsMax + nonceWindowMs + 1, nonces).verify(request);
    assert.equal(
      !later.ok && later.rejection.kind === "invalid_signature" && later.rejection.reason,
      "date-skew",
    );
  });

  it("checks the body bytes against content-md5 and the signature", async () => {
    const body = Buffer.from('{"a":1}');
    const signed = signRequest(credentials, { method: "POST", path: "/p", body, date: new Date(nowMs) });
    const good = await verifier().verify({
      method: "POST",
      url: "/p",
      headers: signed.headers,
      rawBody: body,
    });
    assert.equal(good.ok, true);
    const tampered = await verifier().verify({
      method: "POST",
      url: "/p",
      headers: signed.headers,
      rawBody: Buffer.from('{"a":2}'),
    });
    assert.equal(
      !tampered.ok && tampered.rejection.kind === "invalid_signature" && tampered.rejection.reason,
      "content-md5",
    );
  });

  it("remembers a signed nonce for the window, then forgets it", async () => {
    const nonces = new MemoryNonceWindow(2 * dateSkewMsMax);
    const request = signedGet("/x", { nonce: "n-1" });
    assert.equal((await verifier(nowMs, nonces).verify(request)).ok, true);
    const replay = await verifier(nowMs, nonces).verify(request);
    assert.equal(!replay.ok && replay.rejection.kind, "nonce_rejected");
    // A nonce is per APP Key: the same value from another application is not a replay.
    assert.equal(nonces.remember("other-app", "n-1", nowMs), "fresh");
  });

  it("answers at once, without a promise, when the key is known at once and the nonce is in memory", async () => {
    // Every request pays the verifier: a cached key and an in-memory nonce window need no wait.
    const known = createGatewayVerifier({
      lookupAppKey: (appKey) => (appKey === keyRecord.appKey ? keyRecord : undefined),
      nowMs: () => nowMs,
      nonces: new MemoryNonceWindow(2 * dateSkewMsMax),
    });
    const signed = signedGet("/x", { nonce: "n-now" });
    const replayedLater = { ...signed };
    assert.deepEqual(known.verify(signed), { ok: true, appKey: keyRecord });
    assert.deepEqual(known.verify(replayedLater), {
      ok: false,
      rejection: { kind: "nonce_rejected", message: "unauthorized: Nonce already used" },
    });
    assert.deepEqual(known.verify(signedGet("/x", { nonce: false })), { ok: true, appKey: keyRecord });
    // A lookup or a nonce store that waits still gives the same verdicts, through a promise.
    const waiting = createGatewayVerifier({
      lookupAppKey: async (appKey) => (appKey === keyRecord.appKey ? keyRecord : undefined),
      nowMs: () => nowMs,
      nonces: { remember: async () => "replayed" as const },
    });
    const pending = waiting.verify(signedGet("/x", { nonce: "n-later" }));
    assert.ok(pending instanceof Promise);
    assert.deepEqual(await pending, {
      ok: false,
      rejection: { kind: "nonce_rejected", message: "unauthorized: Nonce already used" },
    });
  });

  it("refuses an over-long nonce", async () => {
    const verdict = await verifier().verify(signedGet("/x", { nonce: "n".repeat(129) }));
    assert.equal(!verdict.ok && verdict.rejection.kind, "nonce_rejected");
  });

  it("refuses a request that is not a read without a signed nonce when the partner must sign one", async () => {
    const strictRecord: AppKeyRecord = { ...keyRecord, signedNonceRequired: true };
    const strict = createGatewayVerifier({
      lookupAppKey: async (appKey) => (appKey === strictRecord.appKey ? strictRecord : undefined),
      nowMs: () => nowMs,
    });
    const body = Buffer.from('{"a":1}');
    const post = (nonce: string | false, extraHeaders: Record<string, string> = {}): GatewayRequest => {
      const signed = signRequest(credentials, {
        method: "POST",
        path: "/p",
        body,
        date: new Date(nowMs),
        nonce,
      });
      return { method: "POST", url: "/p", headers: { ...signed.headers, ...extraHeaders }, rawBody: body };
    };
    const refused = await strict.verify(post(false));
    assert.deepEqual(refused, {
      ok: false,
      rejection: { kind: "nonce_rejected", message: "unauthorized: Missing signed X-CA-NONCE header" },
    });
    assert.deepEqual(gatewayRejectionResponse((refused as { rejection: GatewayRejection }).rejection), {
      status: 401,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: '{"code":1401,"message":"unauthorized: Missing signed X-CA-NONCE header","data":null}',
    });
    const unsignedHeader = await strict.verify(post(false, { "x-ca-nonce": "not-signed" }));
    assert.equal(
      !unsignedHeader.ok && unsignedHeader.rejection.kind,
      "nonce_rejected",
      "a nonce must be signed",
    );
    assert.equal((await strict.verify(post("n-strict"))).ok, true, "a signed nonce passes");
    assert.equal((await strict.verify(signedGet("/x", { nonce: false }))).ok, true, "a read needs none");
    assert.equal((await verifier().verify(post(false))).ok, true, "other partners: off by default");
  });

  it("keeps x-ca-error-message printable whatever the query held", () => {
    const response = gatewayRejectionResponse({
      kind: "invalid_signature",
      reason: "signature",
      stringToSign: "GET\n/x?q=é",
    });
    assert.equal(
      response.headers["x-ca-error-message"],
      "Invalid Signature, Server StringToSign:`GET#/x?q=%C3%A9`",
    );
  });
});

describe("WebSocket upgrade verification", () => {
  async function upgradeStatus(
    headers: Record<string, string>,
    path: string,
  ): Promise<{ status: number; body: string }> {
    const gateway = verifier(Date.now());
    const server = createServer();
    server.on("upgrade", async (request, socket) => {
      const verdict = await gateway.verifyUpgrade(request);
      if (!verdict.ok) return writeGatewayRejectionToSocket(socket, verdict.rejection);
      socket.end("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      return await new Promise((resolve, reject) => {
        const request = httpRequest({
          host: "127.0.0.1",
          port,
          path,
          headers: { ...headers, connection: "Upgrade", upgrade: "websocket" },
        });
        request.on("upgrade", (response) => resolve({ status: response.statusCode ?? 0, body: "" }));
        request.on("response", (response) => {
          let body = "";
          response.on("data", (chunk: Buffer) => {
            body += chunk.toString();
          });
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        });
        request.on("error", reject);
        request.end();
      });
    } finally {
      server.close();
    }
  }

  it("accepts a signed upgrade with the signed cookie of a user channel", async () => {
    const signed = signWebSocketUpgrade(credentials, {
      path: "/socket/user-positions",
      query: { marketId: 3, userId: 7 },
      cookie: "predex_session=abc",
    });
    assert.equal((await upgradeStatus(signed.headers, signed.pathAndQuery)).status, 101);
  });

  it("refuses an upgrade whose cookie was changed after signing", async () => {
    const signed = signWebSocketUpgrade(credentials, {
      path: "/socket/user-info",
      cookie: "predex_session=abc",
    });
    const result = await upgradeStatus(
      { ...signed.headers, cookie: "predex_session=xyz" },
      signed.pathAndQuery,
    );
    assert.deepEqual(result, { status: 400, body: "Invalid Signature" });
  });

  it("refuses an upgrade with an unknown key", async () => {
    const signed = signWebSocketUpgrade({ ...credentials, appKey: "nope" }, { path: "/socket/market-price" });
    assert.deepEqual(await upgradeStatus(signed.headers, signed.pathAndQuery), {
      status: 401,
      body: "Invalid Key",
    });
  });
});
