// The single-process engine (`predex serve` on SQLite, a child process) meets a commit that fails:
// another process holds the database's write lock past the busy timeout (an operator's tool, a
// stuck backup), so the order's batch gets SQLITE_BUSY. The engine stops and the process exits to
// recover from the journal, as before; what changed is the answer to the order that met it. It used
// to be a dropped connection (the exit came first) or a 500; now it is the truth, sent before the
// exit: SQLITE_BUSY means the batch was never written, so 502/2002 with Retry-After, and after a
// restart no order is there and no money moved. (A failure that may have written the batch is
// 504/2001: test/api/partner/errors.test.ts, test/engine/engine.test.ts.)

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { PredexNothingDoneError } from "../../src/sdk/errors.js";
import { databaseFileName } from "../../src/server.js";
import { CliNode } from "../support/cli-node.js";
import { type RecordedAnswer, recordingFetch } from "../support/recording-fetch.js";
import { testMasterKeyHex, testPlatformEnv } from "./harness.js";

const adminToken = "engine-failure-admin-token-0123456789";
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

// SQLite only (test/support/postgres-pass.ts leaves it out of the PostgreSQL pass).
describe("an engine whose commit fails answers the order that met it before the process exits", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-engine-failure-"));
  const nodes: CliNode[] = [];
  after(async () => {
    for (const node of nodes) {
      node.kill("SIGKILL");
      await node.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const serve = async () => {
    const node = CliNode.start(["serve"], {
      ...testPlatformEnv(dataDir),
      PREDEX_MASTER_KEY: testMasterKeyHex,
      PREDEX_ADMIN_TOKEN: adminToken,
    });
    nodes.push(node);
    const address = async (listener: string) =>
      (await node.waitFor(new RegExp(`^\\s+${listener}\\s.*?(https?://\\S+)`), 90_000))[1]!;
    return { node, gateway: await address("gateway"), admin: await address("admin") };
  };

  it("SQLITE_BUSY on the order's commit: 502/2002 with Retry-After, exit 70, and nothing placed", {
    timeout: 180_000,
  }, async () => {
    const first = await serve();
    const operator = new PredexAdminClient({ baseUrl: first.admin, token: adminToken });
    const partner = await operator.createPartner();
    const created = await operator.createMarket({
      title: "Locked database",
      categoryId: (await operator.createCategory({ name: "Failures" })).id,
      startTime: isoSeconds(Date.now() - 60_000),
      endTime: isoSeconds(Date.now() + 86_400_000),
      outcomes: [{ name: "Locked database", options: [{ title: "Yes" }, { title: "No" }] }],
    });
    const market = await operator.openMarket(created.marketId);
    const outcome = market.outcomes[0]!;
    const registration = {
      userEmail: "locked@example.com",
      merchantId: partner.merchantId,
      marchantUserId: "locked-database",
    };
    const answers: RecordedAnswer[] = [];
    const client = new PredexClient({
      baseUrl: first.gateway,
      credentials: partner,
      fetch: recordingFetch(answers),
      // One attempt: the answer itself is under test, not what a retry meets.
      retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
      // No signed nonce: the gateway would write it to the locked database first and answer
      // 502/2002 itself, and the order would never reach the engine whose failure is under test.
      nonces: false,
    });
    const user = await client.register(registration);
    await operator.deposit({ userId: user.userId, amount: "100", txHash: "0xlockeddatabase" });

    const holder = new Database(join(dataDir, databaseFileName));
    holder.exec("BEGIN EXCLUSIVE");
    let error: unknown;
    try {
      await client.createOrder({
        marketId: market.marketId,
        outcomeId: outcome.outcomeId,
        optionId: outcome.options[0]!.optionId,
        side: "BUY",
        orderType: "LIMIT",
        limitPrice: 0.3,
        shares: 10,
      });
    } catch (caught) {
      error = caught;
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    assert.ok(
      error instanceof PredexNothingDoneError,
      `got ${String(error)}: ${JSON.stringify(answers.at(-1))}`,
    );
    const answer = answers.at(-1)!;
    assert.deepEqual([answer.status, answer.code], [502, 2002]);
    assert.match(answer.retryAfter ?? "", /^[1-9][0-9]*$/);
    assert.equal(await first.node.exited, 70, "the process still exits to recover from the journal");

    const second = await serve();
    const again = new PredexClient({ baseUrl: second.gateway, credentials: partner });
    await again.register(registration);
    const open = await again.getOpenOrders({ marketId: market.marketId });
    assert.equal(open.records.length, 0, "nothing was placed");
    const [usdt] = await again.getAssets();
    assert.deepEqual([usdt!.available, usdt!.frozen], ["100", "0"]);
  });
});
