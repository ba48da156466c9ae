// A signed request answered is never answered again: the real server (`predex serve`, a child
// process) is killed with SIGKILL in the middle of a burst of signed reads from several clients,
// each with its own x-ca-nonce, and started again on the same data dir (SQLite, or the dir's
// database in the PostgreSQL pass). Every request it had answered, sent again byte for byte inside
// the date window, is refused (401/1401 Nonce already used); requests it never answered promise
// nothing. On SQLite the nonces are written at synchronous=NORMAL and answered after an fdatasync of
// the WAL off the event loop (src/store/sqlite/wal-sync.ts): this is the process-crash half of that
// promise, end to end (the power-cut half, the sync's order, is test/store/sqlite/gateway-nonces).

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { type SignedRequest, signRequest } from "../../src/sdk/signer.js";
import { type ServeProcess, startServeProcess } from "./serve-process.js";

const adminToken = "sigkill-nonces-admin-token-0123456789";
const clientsCount = 8;
/** The server is killed once this many signed requests were answered (the burst goes on beyond). */
const answeredBeforeKill = 400;

const send = (gateway: string, request: SignedRequest) =>
  fetch(new URL(request.pathAndQuery, gateway), { headers: request.headers });

describe("SIGKILL in the middle of a burst of signed requests", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-sigkill-nonces-"));
  const servers: ServeProcess[] = [];
  after(async () => {
    for (const server of servers) {
      server.node.kill("SIGKILL");
      await server.node.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses, after the restart, every request answered before the kill", { timeout: 180_000 }, async () => {
    const first = await startServeProcess(dataDir, adminToken);
    servers.push(first);
    const partner = await new PredexAdminClient({ baseUrl: first.admin, token: adminToken }).createPartner();
    const sign = () =>
      signRequest(partner, { method: "GET", path: "/markets/category-tree", nonce: randomUUID() });

    const answered: SignedRequest[] = [];
    let killed = false;
    const burst = Array.from({ length: clientsCount }, async () => {
      while (!killed) {
        const request = sign();
        try {
          const response = await send(first.gateway, request);
          await response.arrayBuffer();
          // Answered: the nonce was taken (200), and a request cut off by the kill is not counted.
          assert.equal(response.status, 200);
          answered.push(request);
          if (answered.length >= answeredBeforeKill && !killed) {
            killed = true;
            first.node.kill("SIGKILL");
          }
        } catch (error) {
          if (!killed) throw error;
        }
      }
    });
    await Promise.all(burst);
    await first.node.exited;
    assert.ok(answered.length >= answeredBeforeKill);

    const second = await startServeProcess(dataDir, adminToken);
    servers.push(second);
    const replayed = await Promise.all(
      answered.map(async (request) => {
        const response = await send(second.gateway, request);
        return { status: response.status, body: await response.json() };
      }),
    );
    const passed = replayed.filter((answer) => answer.status !== 401);
    assert.equal(passed.length, 0, `${passed.length} of ${answered.length} answered requests passed again`);
    assert.deepEqual(replayed[0]!.body, {
      code: 1401,
      message: "unauthorized: Nonce already used",
      data: null,
    });
    // The partner is not locked out: a new nonce passes.
    assert.equal((await send(second.gateway, sign())).status, 200);
  });
});
