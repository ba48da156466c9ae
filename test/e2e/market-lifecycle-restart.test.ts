// The lifecycle survives a restart: the platform is stopped after its markets close and started
// again on the same data dir. Finalize and claim work on a market closed before the restart, and
// the scheduler settles a resolution whose short challenge window ended while the platform was
// down, and one resolved after the restart, when nobody finalizes them.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { type Platform, startPlatform } from "../../src/server.js";
import { waitUntil } from "../support/wait-until.js";
import { testPlatformConfig } from "./harness.js";
import { isoAt, usdtOf } from "./trading-fixtures.js";

const hourMs = 3_600_000;
const settleWaitMsMax = 10_000;

/** Added to the real clock: the test moves the platform's time past challenge windows instead of sleeping. */
let clockOffsetMs = 0;

async function start(dataDir: string): Promise<Platform> {
  return startPlatform(testPlatformConfig(dataDir), { nowMs: () => Date.now() + clockOffsetMs });
}

const operatorOf = (platform: Platform) =>
  new PredexAdminClient({ baseUrl: platform.addresses.admin, token: platform.adminToken });

/** Polls the market's detail until it is settled (the scheduler ticks every 500 ms). */
async function settledByScheduler(client: PredexClient, marketId: string): Promise<void> {
  await waitUntil(async () => (await client.getMarketDetail(marketId)).status === "settled", {
    what: `market ${marketId} settled by the scheduler`,
    timeoutMs: settleWaitMsMax,
    intervalMs: 100,
  });
}

describe("the market lifecycle across a restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-restart-"));
  let platform: Platform | undefined;
  after(async () => {
    await platform?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("finalizes, claims and settles by the window after the server restarts between close and finalize", async () => {
    platform = await start(dataDir);
    let operator = operatorOf(platform);
    const partner = await operator.createPartner();
    const clientFor = (target: Platform) =>
      new PredexClient({
        baseUrl: target.addresses.gateway,
        credentials: partner,
        retry: { attemptsMax: 3, delayMsBase: 1, delayMsMax: 5 },
      });
    const users: { client: PredexClient; userId: string }[] = [];
    for (const name of ["alice", "bob"]) {
      const client = clientFor(platform);
      const user = await client.register({
        userEmail: `${name}-${process.pid}@example.com`,
        merchantId: partner.merchantId,
        marchantUserId: `${name}-${process.pid}`,
      });
      await operator.deposit({
        userId: user.userId,
        amount: "20",
        txHash: `0xrestart-${name}-${process.pid}`,
      });
      users.push({ client, userId: user.userId });
    }
    const [alice, bob] = users as [(typeof users)[0], (typeof users)[0]];

    // Three markets; in each Alice buys 4 Yes and Bob 4 No at 0.5 (a mint), then all close.
    const category = await operator.createCategory({ name: "Restarts" });
    const markets: { marketId: string; outcomeId: string; yes: string; no: string }[] = [];
    for (const title of ["Finalized after restart", "Window ends while down", "Resolved after restart"]) {
      const created = await operator.createMarket({
        title,
        categoryId: category.id,
        startTime: isoAt(Date.now() - hourMs),
        endTime: isoAt(Date.now() + hourMs),
        outcomes: [{ name: title, options: [{ title: "Yes" }, { title: "No" }] }],
      });
      await operator.openMarket(created.marketId);
      const outcome = created.outcomes[0]!;
      const market = {
        marketId: created.marketId,
        outcomeId: outcome.outcomeId,
        yes: outcome.options[0]!.optionId,
        no: outcome.options[1]!.optionId,
      };
      for (const [user, optionId] of [
        [alice, market.yes],
        [bob, market.no],
      ] as const) {
        await user.client.createOrder({
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId,
          side: "BUY",
          orderType: "LIMIT",
          limitPrice: 0.5,
          shares: 4,
        });
      }
      await operator.closeMarket(market.marketId);
      markets.push(market);
    }
    const [finalized, windowed, late] = markets as [
      (typeof markets)[0],
      (typeof markets)[0],
      (typeof markets)[0],
    ];
    // The second market's one-second window starts now and ends while the platform is down.
    await operator.resolveMarket(windowed.marketId, {
      outcomes: [{ outcomeId: windowed.outcomeId, winningOptionId: windowed.no }],
      challengeWindowSeconds: 1,
    });
    const sessions = [alice.client.sessionCookie, bob.client.sessionCookie];

    await platform.close();
    platform = undefined;
    // The window ends while the platform is down: its clock is 1.2 s further on when it starts again.
    clockOffsetMs += 1_200;
    platform = await start(dataDir);
    operator = operatorOf(platform);
    for (const [index, user] of users.entries()) {
      user.client = clientFor(platform);
      user.client.sessionCookie = sessions[index];
    }

    // The window ended while the platform was down: the first scheduler ticks settle it.
    await settledByScheduler(alice.client, windowed.marketId);
    const windowedDetail = await alice.client.getMarketDetail(windowed.marketId);
    assert.deepEqual(
      windowedDetail.outcomes[0]!.options.map((option) => option.isWin),
      [false, true],
    );

    // The first market, closed before the restart, is resolved and finalized after it.
    const detail = await alice.client.getMarketDetail(finalized.marketId);
    assert.equal(detail.status, "closed");
    await operator.resolveMarket(finalized.marketId, {
      outcomes: [{ outcomeId: finalized.outcomeId, winningOptionId: finalized.yes }],
    });
    const settled = await operator.finalizeMarket(finalized.marketId);
    assert.equal(settled.status, "settled");

    // The third is resolved after the restart and left to the scheduler.
    await operator.resolveMarket(late.marketId, {
      outcomes: [{ outcomeId: late.outcomeId, winningOptionId: late.yes }],
      challengeWindowSeconds: 1,
    });
    clockOffsetMs += 1_200;
    await settledByScheduler(alice.client, late.marketId);

    // Claims: Alice wins the first and third (4 each), Bob the second (4).
    for (const [user, market, optionId] of [
      [alice, finalized, finalized.yes],
      [bob, windowed, windowed.no],
      [alice, late, late.yes],
    ] as const) {
      const { records } = await user.client.getPositions({ marketId: market.marketId });
      const position = records.find((record) => record.optionId === optionId)!;
      assert.equal(position.status, "settled");
      assert.equal((await user.client.claim(position.positionId)).claimedAmount, "4");
    }
    // 20 − 3 × 2 paid in, then 8 and 4 claimed back.
    assert.deepEqual(await usdtOf(alice.client), { available: "22", frozen: "0", total: "22" });
    assert.deepEqual(await usdtOf(bob.client), { available: "18", frozen: "0", total: "18" });
  });
});
