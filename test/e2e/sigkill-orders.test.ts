// Kills the real server (`predex serve`, a child process) with SIGKILL in the middle of a burst of
// signed create-order requests from several users, restarts it on the same data dir, and checks
// that every acknowledged order and trade is there, and that the ledger balances to the atom.

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
import { testDatabaseEnv, testMasterKeyHex, testPlatformEnv } from "./harness.js";
import { openStoredExchange } from "./store-contents.js";
import { isoAt } from "./trading-fixtures.js";

const usersCount = 8;
const depositUsdt = "1000";
/** The server is killed once this many orders have been acknowledged (the burst goes on beyond it). */
const acknowledgedBeforeKill = 300;
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

describe("SIGKILL in the middle of an order burst", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-sigkill-"));
  const servers: Server[] = [];
  after(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await Promise.all(servers.map((server) => server.exited));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps every acknowledged order and trade, and an exact ledger", { timeout: 120_000 }, async () => {
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
    const market = await operator.openMarket(created.marketId);
    const outcome = market.outcomes[0]!;
    const [yes, no] = [outcome.options[0]!.optionId, outcome.options[1]!.optionId];

    const users: { client: PredexClient; userId: string }[] = [];
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
      users.push({ client, userId: user.userId });
    }

    // The burst: half the users bid for Yes, half for No, at prices that cross, so orders mint,
    // rest, and are partly filled; every order has a clientOrderId to find it again.
    const acknowledged = new Map<string, { user: number; order: Order }>();
    let killed = false;
    const burst = users.map(async (user, userIndex) => {
      for (let sequence = 0; !killed; sequence += 1) {
        const clientOrderId = `u${userIndex}-${sequence}`;
        const price = [0.45, 0.5, 0.55][sequence % 3]!;
        try {
          const order = await user.client.createOrder({
            marketId: market.marketId,
            outcomeId: outcome.outcomeId,
            optionId: userIndex % 2 === 0 ? yes : no,
            side: "BUY",
            orderType: "LIMIT",
            limitPrice: price,
            shares: 1 + (sequence % 4),
            clientOrderId,
          });
          acknowledged.set(clientOrderId, { user: userIndex, order });
          if (acknowledged.size >= acknowledgedBeforeKill && !killed) {
            killed = true;
            first.child.kill("SIGKILL");
          }
        } catch {
          // Refused or cut off by the kill: not acknowledged, so nothing is promised about it.
          if (killed) return;
        }
      }
    });
    await Promise.all(burst);
    await first.exited;
    assert.ok(acknowledged.size >= acknowledgedBeforeKill);

    // Restart on the same data dir; sessions are durable, so the same clients work again.
    const second = await startServer(dataDir);
    servers.push(second);
    const clients = users.map(
      () =>
        new PredexClient({
          baseUrl: second.gateway,
          credentials: partner,
          retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
        }),
    );
    users.forEach((user, index) => {
      clients[index]!.sessionCookie = user.client.sessionCookie;
    });

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
        outcomeId: outcome.outcomeId,
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

    // The ledger: what came in is exactly where it is now, in the engine's state and in the read models.
    second.child.kill("SIGTERM");
    assert.equal(await second.exited, 0);
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
  });
});
