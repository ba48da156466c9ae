// The dead-man's switch survives the engine's death. The real server (`predex serve`, a child
// process) is killed with SIGKILL right after two users armed their switches, and started again on
// the same data dir (SQLite, or the dir's database in the PostgreSQL pass):
// - the switch whose deadline passed while the server was down goes off at the first scheduler tick
//   after the start, never before its deadline;
// - the switch whose deadline is still ahead at the restart goes off on time: at its deadline, not
//   earlier, within a few scheduler ticks (the deadline was journaled with the heartbeat; nothing
//   the dead process held in memory is needed).
// Each goes off as one journaled TripDeadMansSwitch cancelling every open order of its user.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { ExchangeCommand, ExchangeEvent } from "../../src/core/exchange.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { waitUntil } from "../support/wait-until.js";
import { type ServeProcess, startServeProcess } from "./serve-process.js";
import { openStoredExchange } from "./store-contents.js";
import { isoAt } from "./trading-fixtures.js";

const adminToken = "sigkill-heartbeat-admin-token-0123456789";
/** Loose, as a busy machine may delay a tick: the point is "at the deadline", not "much later". */
const lateMsMax = 5_000;

describe("SIGKILL with dead-man's switches armed", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-sigkill-heartbeat-"));
  const servers: ServeProcess[] = [];
  after(async () => {
    for (const server of servers) {
      server.node.kill("SIGKILL");
      await server.node.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps both deadlines and cancels on time after the restart", { timeout: 180_000 }, async () => {
    const first = await startServeProcess(dataDir, adminToken);
    servers.push(first);
    const operator = new PredexAdminClient({ baseUrl: first.admin, token: adminToken });
    const partner = await operator.createPartner();
    const created = await operator.createMarket({
      title: "Dead man's switch",
      categoryId: (await operator.createCategory({ name: "Crash" })).id,
      startTime: isoAt(Date.now() - 60_000),
      endTime: isoAt(Date.now() + 86_400_000),
      outcomes: [{ name: "Switch", options: [{ title: "Yes" }, { title: "No" }] }],
    });
    const market = await operator.openMarket(created.marketId);
    const outcome = market.outcomes[0]!;
    const makers = [];
    for (const name of ["late", "ahead"]) {
      const client = new PredexClient({
        baseUrl: first.gateway,
        credentials: partner,
        retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
      });
      const user = await client.register({
        userEmail: `switch-${name}@example.com`,
        merchantId: partner.merchantId,
        marchantUserId: `switch-${name}`,
      });
      await operator.deposit({ userId: user.userId, amount: "100", txHash: `0xswitch-${name}` });
      const { results } = await client.createOrders(
        [0.1, 0.2, 0.3].map((limitPrice) => ({
          marketId: market.marketId,
          outcomeId: outcome.outcomeId,
          optionId: outcome.options[0]!.optionId,
          side: "BUY" as const,
          orderType: "LIMIT" as const,
          limitPrice,
          shares: 10,
        })),
      );
      assert.ok(results.every((result) => result.ok));
      makers.push({ client, userId: Number(user.userId) });
    }
    const [late, ahead] = makers as [(typeof makers)[0], (typeof makers)[0]];
    // One switch will expire while the server is down, the other only after it is back.
    const lateDeadlineMs = Date.parse((await late.client.heartbeat(5)).expiresAt!);
    const aheadDeadlineMs = Date.parse((await ahead.client.heartbeat(40)).expiresAt!);
    first.node.kill("SIGKILL");
    await first.node.exited;
    while (Date.now() <= lateDeadlineMs + 500) await new Promise((resolve) => setTimeout(resolve, 100));

    const second = await startServeProcess(dataDir, adminToken);
    servers.push(second);
    const restartedMs = Date.now();
    assert.ok(restartedMs < aheadDeadlineMs - 2_000, "the second deadline is still ahead at the restart");
    for (const maker of makers) {
      const client = new PredexClient({ baseUrl: second.gateway, credentials: partner });
      client.sessionCookie = maker.client.sessionCookie;
      maker.client = client;
    }
    await waitUntil(async () => (await late.client.getOpenOrders()).total === 0, { timeoutMs: 20_000 });
    assert.equal((await ahead.client.getOpenOrders()).total, 3, "the other switch is not due yet");
    await waitUntil(async () => (await ahead.client.getOpenOrders()).total === 0, { timeoutMs: 60_000 });
    for (const maker of makers) {
      assert.deepEqual(
        (await maker.client.getAssets()).map((asset) => [asset.available, asset.frozen]),
        [["100", "0"]],
      );
    }

    second.node.kill("SIGTERM");
    assert.equal(await second.node.exited, 0);
    const stored = await openStoredExchange(dataDir);
    const trips: JournalEntry<ExchangeCommand, ExchangeEvent>[] = [];
    try {
      for await (const batch of stored.store.readJournal(0n)) {
        for (const entry of batch) if (entry.command.type === "TripDeadMansSwitch") trips.push(entry);
      }
    } finally {
      await stored.close();
    }
    const tripOf = (userId: number) =>
      trips.filter((entry) => entry.command.type === "TripDeadMansSwitch" && entry.command.userId === userId);
    const [lateTrip] = tripOf(late.userId);
    const [aheadTrip] = tripOf(ahead.userId);
    assert.deepEqual([tripOf(late.userId).length, tripOf(ahead.userId).length], [1, 1]);
    for (const trip of [lateTrip!, aheadTrip!]) {
      assert.deepEqual(
        trip.events.map((event) => (event.type === "OrderCancelled" ? event.reason : event.type)),
        ["DEAD_MANS_SWITCH", "DEAD_MANS_SWITCH", "DEAD_MANS_SWITCH", "DeadMansSwitchTripped"],
      );
    }
    // Down past its deadline: gone off as the restarted engine began, not before the deadline.
    assert.ok(lateTrip!.nowMs >= lateDeadlineMs);
    assert.ok(lateTrip!.nowMs < Date.now());
    // Still ahead at the restart: on time.
    assert.ok(aheadTrip!.nowMs >= aheadDeadlineMs, "not before its deadline");
    assert.ok(
      aheadTrip!.nowMs < aheadDeadlineMs + lateMsMax,
      `${aheadTrip!.nowMs - aheadDeadlineMs} ms late`,
    );
  });
});
