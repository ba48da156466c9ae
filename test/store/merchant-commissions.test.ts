// Merchant commission accrues in the trade's own commit: each merchant earns its rate of the fees
// its users paid, per UTC month and per rate in force, rounded down once over the month's total.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMarketCommand, limitOrderCommand } from "../../src/core/exchange.js";
import { periodOf } from "../../src/store/merchant-commissions.js";
import { exchangeStoreHarnesses } from "./exchange-store-harness.js";

const unit = 100_000_000n;
const endOfJanuaryMs = Date.UTC(2027, 0, 31, 23, 59, 0);
const startOfFebruaryMs = Date.UTC(2027, 1, 1, 0, 0, 0);

for (const harness of exchangeStoreHarnesses())
  describe(`merchant commissions: ${harness.name}`, { skip: harness.skip }, () => {
    it("accrue each merchant's rate of its users' fees, per month and rate, rounded down once", async () => {
      let nowMs = endOfJanuaryMs;
      const run = await harness.open(() => nowMs, { identity: true });
      const generous = await run.addPartner("generous", 3_333);
      const stingy = await run.addPartner("stingy", 0);
      const alice = await run.addUser(generous, "alice");
      const bob = await run.addUser(generous, "bob");
      const carol = await run.addUser(stingy, "carol");
      const { engine, commissions } = run;
      const created = await engine.submit(
        createMarketCommand({ title: "Fees", makerFeeBps: 17, takerFeeBps: 53 }),
      );
      assert.ok(created.ok && created.events[0]?.type === "MarketCreated");
      const { marketId } = created.events[0];
      const outcome = created.events[0].outcomes[0]!;
      await engine.submit({ type: "OpenMarket", marketId });
      for (const userId of [alice, bob, carol])
        await engine.submit({ type: "Deposit", userId, amount: 1_000n * unit, txHash: `0x${userId}` });

      const fees = new Map<string, bigint>();
      const trade = async (maker: number, taker: number, shares: bigint) => {
        const order = (userId: number, optionIndex: 0 | 1) =>
          limitOrderCommand({
            userId,
            marketId,
            outcomeId: outcome.outcomeId,
            optionId: outcome.options[optionIndex]!.optionId,
            side: "BUY",
            limitPrice: optionIndex === 0 ? 37_000_000n : 63_000_000n,
            shares,
          });
        await engine.submit(order(maker, 0));
        const taken = await engine.submit(order(taker, 1));
        assert.ok(taken.ok);
        for (const event of taken.events) {
          if (event.type !== "TradeExecuted") continue;
          for (const [userId, fee] of [
            [event.makerUserId, event.makerFee],
            [event.takerUserId, event.takerFee],
          ] as const) {
            const key = `${userId === carol ? stingy : generous}:${periodOf(event.atMs)}`;
            fees.set(key, (fees.get(key) ?? 0n) + fee);
          }
        }
      };
      await trade(alice, bob, 3_3330_000n);
      await trade(bob, carol, 7_0001_0000n);
      await trade(carol, alice, 1_000_000n);
      const january = await commissions.commission(generous, "202701");
      assert.equal(january.feeTotal, fees.get(`${generous}:202701`));
      assert.equal(january.commissionTotal, (january.feeTotal * 3_333n) / 10_000n);
      assert.deepEqual(await commissions.commission(stingy, "202701"), {
        merchantId: stingy,
        period: "202701",
        feeTotal: fees.get(`${stingy}:202701`)!,
        commissionTotal: 0n,
        byRate: [{ rateBps: 0, feeTotal: fees.get(`${stingy}:202701`)!, commissionTotal: 0n }],
      });

      // February, and a new rate from the middle of it: a row per rate.
      nowMs = startOfFebruaryMs;
      await trade(alice, bob, 5_0000_0000n);
      const beforeChange = fees.get(`${generous}:202702`)!;
      await run.setCommissionRate(generous, 1_000);
      await trade(bob, alice, 2_0000_0000n);
      const afterChange = fees.get(`${generous}:202702`)! - beforeChange;
      const february = await commissions.commission(generous, "202702");
      assert.deepEqual(february.byRate, [
        { rateBps: 1_000, feeTotal: afterChange, commissionTotal: (afterChange * 1_000n) / 10_000n },
        { rateBps: 3_333, feeTotal: beforeChange, commissionTotal: (beforeChange * 3_333n) / 10_000n },
      ]);
      assert.equal(february.feeTotal, beforeChange + afterChange);
      assert.equal((await commissions.commission(generous, "202703")).commissionTotal, 0n);
      assert.ok(january.commissionTotal > 0n && february.commissionTotal > 0n);
      await run.close();
    });
  });
