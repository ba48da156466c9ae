// A user's trades and account history through the SDK, page by page, once their rows are partly
// indexed by user in bulk and partly still past the watermark (migration 6; the platform's lag is
// lowered to 3 ids so a few orders reach the bulk step; on PostgreSQL, which has no bulk step, the
// same listings). Every page size walks the same list, newest
// first, as a plain query of the tables gives, with the same total, for every filter.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PagedResult } from "../../src/sdk/client.js";
import { testingOnPostgres } from "./harness.js";
import { selectRows } from "./store-contents.js";
import { startWalletPlatform, type WalletPlatform, type WalletUser } from "./wallet-fixtures.js";

let platform: WalletPlatform;

before(async () => {
  platform = await startWalletPlatform({ userHistoryIndexLag: 3 });
});

after(async () => {
  await platform.close();
});

/** Every record of a paged listing, walking pages of `pageSize` until one comes back short. */
async function walk<Record>(
  pageSize: number,
  fetch: (page: number, pageSize: number) => Promise<{ records: readonly Record[]; total: number }>,
): Promise<{ records: Record[]; totals: Set<number> }> {
  const records: Record[] = [];
  const totals = new Set<number>();
  for (let page = 1; page <= 100; page += 1) {
    const found = await fetch(page, pageSize);
    totals.add(found.total);
    records.push(...found.records);
    if (found.records.length < pageSize) break;
  }
  return { records, totals };
}

function pagedRecords<Record>(result: PagedResult<Record>): { records: readonly Record[]; total: number } {
  return { records: result.records, total: result.total };
}

describe("user history across the bulk index", () => {
  it("lists trades and ledger entries the same at every page size, indexed or not yet", async () => {
    const first = await platform.openMarket();
    const second = await platform.openMarket();
    const alice = await platform.user("1000");
    const bob = await platform.user("1000");
    const buy = (user: WalletUser, market: typeof first, option: "yes" | "no", shares: number) =>
      user.client.createOrder({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market[option],
        side: "BUY",
        orderType: "LIMIT",
        limitPrice: 0.5,
        shares,
      });
    // On SQLite the read models follow the journal in steps whose size depends on timing, and the
    // bulk step runs at the end of each: project each command on its own, so where the watermark
    // lands is the same every run.
    const projectEach = async <Answer>(answer: Promise<Answer>): Promise<Answer> => {
      const answered = await answer;
      if (!testingOnPostgres) platform.platform.catchUpReadModels();
      return answered;
    };
    // Each round mints one trade; who rests and who takes alternates, and so do the markets.
    // Ten trades: with a lag of 3 ids, trades 1–9 get indexed in bulk and trade 10 stays past it.
    for (let round = 0; round < 10; round += 1) {
      const market = round % 3 === 2 ? second : first;
      const [maker, taker] = round % 2 === 0 ? [alice, bob] : [bob, alice];
      await projectEach(buy(maker, market, "yes", 1 + round));
      await projectEach(buy(taker, market, "no", 1 + round));
    }
    const resting = await projectEach(buy(alice, first, "yes", 2));
    await projectEach(alice.client.cancelOrder(resting.orderId));

    // Both parts of a listing are in play on SQLite: some rows indexed by user in bulk, some past
    // the watermark. PostgreSQL has no bulk step (rows are indexed as they are projected): the
    // listings below must match all the same.
    if (!testingOnPostgres) {
      platform.platform.catchUpReadModels();
      const db = platform.platform.db!;
      const watermark = (table: string) =>
        db
          .prepare("SELECT indexed_through FROM exchange_user_index_watermarks WHERE table_name = ?")
          .pluck()
          .get(table) as number;
      const highest = (sql: string) => db.prepare(sql).pluck().get() as number;
      for (const [table, max] of [
        ["exchange_trades", "SELECT max(trade_id) FROM exchange_trades"],
        ["exchange_ledger", "SELECT max(entry_id) FROM exchange_ledger"],
      ] as const) {
        assert.ok(watermark(table) > 0, `${table} reached the bulk step`);
        assert.ok(highest(max) > watermark(table), `${table} has rows past its watermark`);
      }
    }

    for (const user of [alice, bob]) {
      const userId = Number(user.userId);
      for (const market of [undefined, first, second]) {
        const expected = await selectRows<{ trade_id: number; role: string }>(
          platform,
          `SELECT trade_id, role FROM exchange_trades WHERE user_id = ?
           ${market === undefined ? "" : "AND market_id = ?"} ORDER BY trade_id DESC`,
          market === undefined ? [userId] : [userId, Number(market.marketId)],
        );
        for (const pageSize of [1, 2, 5, 100]) {
          const { records, totals } = await walk(pageSize, async (page, size) =>
            pagedRecords(
              await user.client.getTrades({
                ...(market === undefined ? {} : { marketId: market.marketId }),
                page,
                pageSize: size,
              }),
            ),
          );
          assert.deepEqual(
            records.map((trade) => [Number(trade.tradeId), trade.role]),
            expected.map((row) => [row.trade_id, row.role]),
          );
          assert.deepEqual([...totals], [expected.length]);
        }
      }
      for (const type of [undefined, "DEPOSIT", "FREEZE", "UNFREEZE", "TRADE", "FEE"] as const) {
        const expected = (
          await selectRows<{ entry_id: number }>(
            platform,
            `SELECT entry_id FROM exchange_ledger WHERE user_id = ? ${type === undefined ? "" : "AND type = ?"}
             ORDER BY entry_id DESC`,
            type === undefined ? [userId] : [userId, type],
          )
        ).map((row) => row.entry_id);
        for (const pageSize of [1, 3, 100]) {
          const { records, totals } = await walk(pageSize, (page, size) =>
            user.client.getAccountHistory({ ...(type === undefined ? {} : { type }), page, pageSize: size }),
          );
          assert.deepEqual(
            records.map((entry) => Number(entry.entryId)),
            expected,
            `${type ?? "all"} at page size ${pageSize}`,
          );
          assert.deepEqual([...totals], [expected.length]);
        }
      }
      // The whole history still adds up to the balance.
      const history = await walk(100, (page, size) =>
        user.client.getAccountHistory({ page, pageSize: size }),
      );
      const sum = history.records.reduce((total, entry) => total + Number(entry.amount), 0);
      const [usdt] = await user.client.getAssets();
      assert.equal(sum.toFixed(8), Number(usdt!.available).toFixed(8));
    }
  });
});
