// Kills the real server (`predex serve`, a child process) with SIGKILL in the middle of a burst of
// signed create-order requests from several users, restarts it on the same data dir, and checks
// that every acknowledged order and trade is there, and that the ledger balances to the atom.
//
// The read models follow the journal (issue #31): a command is acknowledged once journalled, and
// projected after. Before the restart the test reads the store and checks that the kill fell in
// that gap (the read models' recorded position behind the journal's end); if it did not, it starts,
// bursts and kills again, a few times at most. After the restart, the read models must be exactly
// those of the same journal projected afresh into an empty database, table by table.

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import type { Order } from "../../src/contract/partner/trading.js";
import { balanceOf, exchangeStateCodec } from "../../src/core/exchange.js";
import { parseAtoms } from "../../src/core/money.js";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import type { GatewayCredentials } from "../../src/sdk/signer.js";
import { testDatabaseEnv, testMasterKeyHex, testPlatformEnv } from "./harness.js";
import { journalAndReadModelPositions, openStoredExchange } from "./store-contents.js";
import { isoAt } from "./trading-fixtures.js";

const usersCount = 8;
const depositUsdt = "1000";
/** The server is killed once this many orders have been acknowledged (the burst goes on beyond it). */
const acknowledgedBeforeKill = 300;
/** Start, burst and kill at most this many times for a kill that falls between journal and projection. */
const killsMax = 5;
const startTimeoutMs = 30_000;
const adminToken = "sigkill-test-admin-token-0123456789";
const serverEntry = new URL("../../src/cli/main.ts", import.meta.url).pathname;

interface Server {
  readonly child: ChildProcess;
  readonly gateway: string;
  readonly admin: string;
  readonly exited: Promise<number | null>;
}

/** Starts `predex serve` on port 0 and reads the printed addresses. */
async function startServer(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, ["--import", "tsx", serverEntry, "serve"], {
    env: {
      ...process.env,
      ...testPlatformEnv(dataDir),
      // The dir's database in the PostgreSQL pass (the same one after the restart).
      ...testDatabaseEnv(dataDir),
      PREDEX_ADMIN_TOKEN: adminToken,
      PREDEX_MASTER_KEY: testMasterKeyHex,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const addresses: Record<string, string> = {};
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error("the server did not print its addresses")),
      startTimeoutMs,
    );
    lines.on("line", (line) => {
      const match = /^\s+(gateway|admin)\s.*?(https?:\/\/\S+)/.exec(line);
      if (match) addresses[match[1]!] = match[2]!;
      if (addresses.gateway !== undefined && addresses.admin !== undefined) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", () => reject(new Error("the server exited while starting")));
  });
  return { child, gateway: addresses.gateway!, admin: addresses.admin!, exited };
}

const atoms = (decimal: string): bigint => {
  const parsed = parseAtoms(decimal);
  if (!parsed.ok) throw new Error(`bad decimal ${decimal}`);
  return parsed.atoms;
};

interface BurstUser {
  readonly userIndex: number;
  readonly client: PredexClient;
}

interface Acknowledged {
  readonly user: number;
  readonly order: Order;
}

interface BurstMarket {
  readonly marketId: string;
  readonly outcomeId: string;
  readonly yes: string;
  readonly no: string;
}

/**
 * The burst: half the users bid for Yes, half for No, at prices that cross, so orders mint, rest,
 * and are partly filled; every order has a clientOrderId (`prefix`-user-n) to find it again. Kills
 * `server` once `acknowledgedBeforeKill` of this burst are acknowledged, and returns them once it
 * has exited.
 */
async function burstAndKill(
  server: Server,
  users: readonly BurstUser[],
  market: BurstMarket,
  prefix: string,
  acknowledged: Map<string, Acknowledged>,
): Promise<void> {
  let count = 0;
  let killed = false;
  const burst = users.map(async ({ userIndex, client }) => {
    for (let sequence = 0; !killed; sequence += 1) {
      const clientOrderId = `${prefix}-u${userIndex}-${sequence}`;
      const price = [0.45, 0.5, 0.55][sequence % 3]!;
      try {
        const order = await client.createOrder({
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: userIndex % 2 === 0 ? market.yes : market.no,
          side: "BUY",
          orderType: "LIMIT",
          limitPrice: price,
          shares: 1 + (sequence % 4),
          clientOrderId,
        });
        acknowledged.set(clientOrderId, { user: userIndex, order });
        count += 1;
        if (count >= acknowledgedBeforeKill && !killed) {
          killed = true;
          server.child.kill("SIGKILL");
        }
      } catch {
        // Refused or cut off by the kill: not acknowledged, so nothing is promised about it.
        if (killed) return;
      }
    }
  });
  await Promise.all(burst);
  await server.exited;
  assert.ok(count >= acknowledgedBeforeKill);
}

/** SIGTERM, and the server stops cleanly (exit 0): `serve` handles it from before it prints its addresses. */
async function stopCleanly(server: Server): Promise<void> {
  server.child.kill("SIGTERM");
  assert.equal(await server.exited, 0, "the server stops cleanly");
}

/** Clients of the same users on a restarted server (sessions are durable: the same cookies work). */
function clientsOn(
  server: Server,
  partner: GatewayCredentials,
  cookies: readonly (string | undefined)[],
): PredexClient[] {
  return cookies.map((cookie) => {
    const client = new PredexClient({
      baseUrl: server.gateway,
      credentials: partner,
      retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
    });
    client.sessionCookie = cookie;
    return client;
  });
}

describe("SIGKILL in the middle of an order burst", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-sigkill-"));
  const servers: Server[] = [];
  after(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await Promise.all(servers.map((server) => server.exited));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps every acknowledged order and trade, rebuilds the read models from the journal, and keeps an exact ledger", {
    timeout: 300_000,
  }, async (t) => {
    const first = await startServer(dataDir);
    servers.push(first);
    const operator = new PredexAdminClient({ baseUrl: first.admin, token: adminToken });
    const partner = await operator.createPartner();
    const created = await operator.createMarket({
      title: "Crash test",
      categoryId: (await operator.createCategory({ name: "Bench" })).id,
      takerFee: 50,
      makerFee: 10,
      startTime: isoAt(Date.now() - 60_000),
      endTime: isoAt(Date.now() + 86_400_000),
      outcomes: [{ name: "Crash", options: [{ title: "Yes" }, { title: "No" }] }],
    });
    const opened = await operator.openMarket(created.marketId);
    const outcome = opened.outcomes[0]!;
    const market: BurstMarket = {
      marketId: opened.marketId,
      outcomeId: outcome.outcomeId,
      yes: outcome.options[0]!.optionId,
      no: outcome.options[1]!.optionId,
    };

    let clients: PredexClient[] = [];
    for (let index = 0; index < usersCount; index += 1) {
      const client = new PredexClient({
        baseUrl: first.gateway,
        credentials: partner,
        retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
      });
      const user = await client.register({
        userEmail: `crash${index}@example.com`,
        merchantId: partner.merchantId,
        marchantUserId: `crash-${index}`,
      });
      await operator.deposit({ userId: user.userId, amount: depositUsdt, txHash: `0xcrash${index}` });
      clients.push(client);
    }

    // Burst and kill until a kill falls between a journal commit and the step projecting it: the
    // store then holds journal entries its read models do not (the next start must project them).
    const acknowledged = new Map<string, Acknowledged>();
    let server = first;
    const positions: string[] = [];
    for (let kill = 1; ; kill += 1) {
      await burstAndKill(
        server,
        clients.map((client, userIndex) => ({ userIndex, client })),
        market,
        `k${kill}`,
        acknowledged,
      );
      const { journal, readModels } = await journalAndReadModelPositions(dataDir);
      positions.push(`journal at ${journal}, read models at ${readModels}`);
      assert.ok(
        readModels <= journal,
        `the read models (${readModels}) are not ahead of the journal (${journal})`,
      );
      if (readModels < journal) break;
      assert.ok(
        kill < killsMax,
        `none of ${killsMax} SIGKILLs fell between the journal and the read models' projection (${positions.join("; ")})`,
      );
      server = await startServer(dataDir);
      servers.push(server);
      clients = clientsOn(
        server,
        partner,
        clients.map((client) => client.sessionCookie),
      );
    }
    t.diagnostic(`after each SIGKILL: ${positions.join("; ")}`);

    // The restart projects what the kill left; stopped before any request, its read models are
    // exactly those of the same journal projected once, uncrashed, into an empty database.
    const recovering = await startServer(dataDir);
    servers.push(recovering);
    await stopCleanly(recovering);
    const recovered = await openStoredExchange(dataDir);
    try {
      const journalEnd = await recovered.store.lastSequence();
      const { stored, fresh, freshThrough, indexMismatches } = await recovered.freshProjection();
      assert.equal(freshThrough, journalEnd, "the fresh projection holds the whole journal");
      for (const [table, rows] of fresh) assert.deepEqual(stored.get(table), rows, `read model ${table}`);
      assert.deepEqual(indexMismatches, []);
      t.diagnostic(
        `compared with a fresh projection through ${freshThrough}: ${[...fresh].map(([table, rows]) => `${table} ${rows.length}`).join(", ")}`,
      );
      assert.ok((fresh.get("exchange_orders")?.length ?? 0) >= acknowledged.size, "orders were projected");
      const { readModels } = await journalAndReadModelPositions(dataDir);
      assert.equal(readModels, journalEnd, "the read models' position is the journal's end");
    } finally {
      await recovered.close();
    }

    // Every acknowledged order and trade, through the API of a server started again.
    const second = await startServer(dataDir);
    servers.push(second);
    clients = clientsOn(
      second,
      partner,
      clients.map((client) => client.sessionCookie),
    );
    await checkAcknowledged(clients, market, acknowledged);

    // The ledger: what came in is exactly where it is now, in the engine's state and in the read models.
    await stopCleanly(second);
    await checkLedger(dataDir);
  });
});

/** Every acknowledged order answers its clientOrderId again, as it now stands, with its trades. */
async function checkAcknowledged(
  clients: readonly PredexClient[],
  market: BurstMarket,
  acknowledged: ReadonlyMap<string, Acknowledged>,
): Promise<void> {
  const tradesByUser = await Promise.all(
    clients.map(async (client) => {
      const trades = new Map<string, { price: string; shares: string; orderId: string }>();
      for (let page = 1; ; page += 1) {
        const result = await client.getTrades({ page, pageSize: 100 });
        for (const trade of result.records) trades.set(`${trade.tradeId}/${trade.role}`, trade);
        if (page >= result.pages) break;
      }
      return trades;
    }),
  );
  for (const [clientOrderId, { user, order }] of acknowledged) {
    // The same clientOrderId answers the first order, as it now stands.
    const now = await clients[user]!.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: order.optionId,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.5,
      shares: 1,
      clientOrderId,
    });
    assert.equal(now.orderId, order.orderId, clientOrderId);
    assert.deepEqual(
      [now.limitPrice, now.shares, now.createdAt],
      [order.limitPrice, order.shares, order.createdAt],
    );
    // A resting order may have filled further since it was acknowledged; a finished one is final.
    if (order.status === "FILLED" || order.status === "CANCELLED") assert.equal(now.status, order.status);
    assert.ok(atoms(now.filledShares) >= atoms(order.filledShares), clientOrderId);
    for (const trade of order.trades) {
      const found = tradesByUser[user]!.get(`${trade.tradeId}/TAKER`);
      assert.deepEqual(found && [found.price, found.shares, found.orderId], [
        trade.price,
        trade.shares,
        order.orderId,
      ]);
    }
  }
}

/** After a clean stop: deposits = balances + collateral + fees, in the state and in the ledger. */
async function checkLedger(dataDir: string): Promise<void> {
  const stored = await openStoredExchange(dataDir);
  try {
    const { store } = stored;
    const snapshot = await store.loadLatestSnapshot();
    assert.ok(
      snapshot !== undefined && snapshot.sequence === (await store.lastSequence()),
      "clean stop writes a snapshot",
    );
    const state = exchangeStateCodec.decode(snapshot.state);
    let balances = 0n;
    const readModelBalances = await stored.rows("SELECT user_id, available, frozen FROM exchange_balances");
    for (const row of readModelBalances) {
      const live = balanceOf(state, Number(row.user_id));
      assert.deepEqual([row.available, row.frozen], [live.available, live.frozen], `user ${row.user_id}`);
      balances += row.available! + row.frozen!;
    }
    const collateral = [...state.outcomes.values()].reduce((sum, item) => sum + item.collateral, 0n);
    const deposits = BigInt(usersCount) * atoms(depositUsdt);
    assert.equal(state.totals.deposited, deposits);
    assert.equal(balances + collateral + state.totals.feeIncome, deposits);
    const [ledger] = await stored.rows(
      "SELECT CAST(sum(amount) + sum(frozen_delta) AS BIGINT) AS total FROM exchange_ledger",
    );
    assert.equal(ledger!.total, balances);
  } finally {
    await stored.close();
  }
}
