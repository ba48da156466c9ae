// Property: the same seeded random command stream (the crash simulation's generator: every market
// model, the whole lifecycle, claims, cancels, withdrawals, exclusive markets' conversions, the
// scheduler's commands) projected by SQLite and by PostgreSQL gives the same answer to every
// ExchangeReadModels query, page by page, and the same merchant commissions and settlement
// notifications. Each store runs a real Engine (PostgreSQL's over PostgresEngineStore with real
// leadership); groups of commands are submitted together, so batches hold several commands and cut
// at settlements.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { ExchangeState } from "../../src/core/exchange.js";
import type { ExchangeReadModels, PageRequest } from "../../src/store/exchange-read-models.js";
import { ledgerEntryTypes, withdrawalRecordStatuses } from "../../src/store/exchange-read-models.js";
import { notifyStatuses } from "../../src/store/legacy.js";
import { periodOf } from "../../src/store/merchant-commissions.js";
import { CommandStream, simUsers } from "../sim/command-stream.js";
import {
  type ExchangeRun,
  postgresExchangeHarness,
  sqliteExchangeHarness,
} from "./exchange-store-harness.js";

const postgres = postgresExchangeHarness();
/** Groups of commands a run submits at least, and at most while it has not yet reached what it checks. */
const groupsCount = 100;
// Only a bound against a stream that never gets there: how many groups a seed needs has a long tail
// (seeds 2,001–30,000 of this schedule: median 100, 99th percentile 551, 0.11% over 1,000, 0.014%
// over 1,500, none over 1,882; each 500 groups more about 8 times rarer). A bound of 1,000 failed
// about one CI run in 300 by chance (seeds 820 and 1428, of the seeds below 2,001, had converted no
// No shares by then; they do at 1,281 and 1,929 groups). Past 4,000, by that decay, a few seeds in
// a billion.
const groupsMax = 4_000;
const groupCommandsMax = 6;

/** Every page of a paginated query, then a page far past the end. */
async function allPages<Record>(
  read: (page: PageRequest) => Promise<{ records: Record[]; total: number }>,
): Promise<unknown[]> {
  const pages: unknown[] = [];
  for (let page = 1; ; page += 1) {
    const found = await read({ page, pageSize: 7 });
    pages.push(found);
    if (found.records.length < 7) break;
  }
  pages.push(await read({ page: 1e20, pageSize: 7 }));
  return pages;
}

/** Every query of the port, for every user, order, trade, position, market, option and deposit. */
async function answers(readModels: ExchangeReadModels, state: ExchangeState): Promise<Map<string, unknown>> {
  const found = new Map<string, unknown>();
  const marketIds = [...state.markets.keys()];
  for (const userId of simUsers) {
    found.set(`orders ${userId}`, await allPages((page) => readModels.orders({ userId }, page)));
    found.set(
      `open ${userId}`,
      await allPages((page) => readModels.orders({ userId, openOnly: true }, page)),
    );
    found.set(`trades ${userId}`, await allPages((page) => readModels.trades({ userId }, page)));
    found.set(`ledger ${userId}`, await allPages((page) => readModels.ledger(userId, page)));
    for (const type of ledgerEntryTypes) {
      found.set(
        `ledger ${userId} ${type}`,
        await allPages((page) => readModels.ledger(userId, page, { type })),
      );
    }
    found.set(`positions ${userId}`, await allPages((page) => readModels.positions({ userId }, page)));
    for (const status of ["open", "settled", "claimed"] as const) {
      found.set(
        `positions ${userId} ${status}`,
        await allPages((page) => readModels.positions({ userId, status }, page)),
      );
    }
    for (const marketId of marketIds) {
      const filter = { userId, marketId };
      found.set(`orders ${userId} m${marketId}`, await allPages((page) => readModels.orders(filter, page)));
      found.set(`trades ${userId} m${marketId}`, await allPages((page) => readModels.trades(filter, page)));
      found.set(
        `positions ${userId} m${marketId}`,
        await allPages((page) => readModels.positions(filter, page)),
      );
    }
    found.set(`deposits ${userId}`, await allPages((page) => readModels.deposits(userId, page)));
    found.set(`withdrawals ${userId}`, await allPages((page) => readModels.withdrawals({ userId }, page)));
  }
  for (const status of withdrawalRecordStatuses) {
    found.set(`withdrawals ${status}`, await allPages((page) => readModels.withdrawals({ status }, page)));
  }
  found.set("withdrawals", await allPages((page) => readModels.withdrawals({}, page)));
  for (let orderId = 1; orderId <= state.counters.nextOrderId; orderId += 1) {
    found.set(`order ${orderId}`, await readModels.orderById(orderId));
    found.set(`trades of order ${orderId}`, await readModels.tradesOfOrder(orderId));
  }
  for (let positionId = 1; positionId <= state.counters.nextPositionId; positionId += 1) {
    found.set(`position ${positionId}`, await readModels.positionById(positionId));
  }
  for (const marketId of [...marketIds, 999_999]) {
    const market = await readModels.market(marketId);
    found.set(`market ${marketId}`, market);
    for (const outcome of market?.outcomes ?? []) {
      for (const option of outcome.options) {
        found.set(
          `prices ${option.optionId}`,
          await readModels.pricePoints(option.optionId, 0, Number.MAX_SAFE_INTEGER, 1_000),
        );
      }
    }
  }
  for (let number = 0; number <= 40; number += 1) {
    found.set(`deposit ${number}`, await readModels.depositByTxHash(`0xsim${number}`));
  }
  for (let withdrawalId = 0; withdrawalId <= 30; withdrawalId += 1) {
    found.set(`withdrawal ${withdrawalId}`, await readModels.withdrawalById(withdrawalId));
  }
  return found;
}

async function withPartners(run: ExchangeRun): Promise<number[]> {
  // Users 1..6 of the stream belong to two merchants of different rates.
  const first = await run.addPartner("first", 2_500);
  const second = await run.addPartner("second", 333);
  for (const userId of simUsers) await run.addUser(userId <= 3 ? first : second, `user${userId}`);
  return [first, second];
}

describe("exchange read models: SQLite and PostgreSQL give the same answers", { skip: postgres.skip }, () => {
  it("for the same random command stream, every query, page by page", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), async (seed) => {
        let nowMs = 1_800_000_000_000;
        const clock = () => nowMs;
        const runs = [
          await sqliteExchangeHarness.open(clock, { identity: true }),
          await postgres.open(clock, { identity: true }),
        ] as const;
        try {
          const partners = await Promise.all(runs.map(withPartners));
          assert.deepEqual(partners[0], partners[1]);
          const stream = new CommandStream(seed);
          const [sqlite, pg] = runs;
          // A stream that has not traded, ended a market and taken a withdrawal by then goes on (some
          // seeds settle nothing in 100 groups, some convert nothing in 400): the checks at the end need
          // all of them to prove much.
          const reached = () =>
            sqlite.engine.read(
              (state) =>
                state.counters.nextTradeId > 10 &&
                state.counters.nextWithdrawalId > 1 &&
                [...state.exclusiveMarkets.values()].some((market) => market.retiredNoShares > 0n) &&
                [...state.markets.values()].some((market) => ["settled", "void"].includes(market.status)),
            );
          for (let group = 0; group < groupsMax && (group < groupsCount || !(await reached())); group += 1) {
            nowMs += 1 + ((seed * 7 + group * 131) % 1_500);
            const size = 1 + ((seed + group) % groupCommandsMax);
            const commands = await sqlite.engine.read((state) => stream.next(state, nowMs, size));
            const [onSqlite, onPostgres] = await Promise.all(
              runs.map((run) => Promise.all(commands.map((command) => run.engine.submit(command)))),
            );
            assert.deepEqual(
              onSqlite!.map((result) => result.ok),
              onPostgres!.map((result) => result.ok),
              `group ${group}`,
            );
          }
          const state = await sqlite.engine.read((live) => live);
          const [expected, actual] = await Promise.all([
            answers(sqlite.readModels, state),
            answers(pg.readModels, state),
          ]);
          for (const [query, answer] of expected) assert.deepEqual(actual.get(query), answer, query);
          const periods = new Set([periodOf(1_800_000_000_000), periodOf(nowMs)]);
          let feesAccrued = 0n;
          for (const merchantId of partners[0]!) {
            for (const period of periods) {
              const accrued = await pg.commissions.commission(merchantId, period);
              feesAccrued += accrued.feeTotal;
              assert.deepEqual(
                accrued,
                await sqlite.commissions.commission(merchantId, period),
                `commission ${merchantId} ${period}`,
              );
            }
          }
          // Takers pay 20 bps in every stream market: commission read the real identity tables.
          if (state.counters.nextTradeId > 1) assert.ok(feesAccrued > 0n, "commission accrued on PostgreSQL");
          for (const marketId of state.markets.keys()) {
            assert.deepEqual(
              await pg.settlementNotifications(marketId),
              await sqlite.settlementNotifications(marketId),
              `notifications of market ${marketId}`,
            );
          }
          for (const userId of simUsers) {
            assert.deepEqual(
              await pg.balanceRow(userId),
              await sqlite.balanceRow(userId),
              `balance ${userId}`,
            );
          }
          assert.deepEqual(await pg.ledgerTypes(), await sqlite.ledgerTypes());

          // The legacy notification list: settlements merged with finished order requests, some at
          // the very times of settlements (the tie order), some pending (never listed).
          // Written through each store's own request queue (its real tables), as the legacy API does.
          const queues = await Promise.all(runs.map((run) => run.legacyRequests()));
          const lists = await Promise.all(runs.map((run) => run.notifications()));
          const settledTimes = (
            await sqlite.query(
              "SELECT coalesce(settled_at_ms, voided_at_ms) AS at FROM markets WHERE coalesce(settled_at_ms, voided_at_ms) IS NOT NULL",
            )
          ).map((row) => Number(row.at));
          for (let number = 0; number < 40; number += 1) {
            const userId = simUsers[number % simUsers.length]!;
            const atMs = settledTimes[number % settledTimes.length] ?? 1_800_000_000_000 + number;
            const status = ["SUCCESS", "FAILED", "PENDING"][number % 3]!;
            for (const queue of queues) {
              const requestId = `fg-${number}`;
              await queue.enqueue({
                requestId,
                merchantId: userId <= 3 ? partners[0]![0]! : partners[0]![1]!,
                userId,
                instruction: {
                  marketId: 1 + (number % 4),
                  outcomeId: 1,
                  optionId: 1,
                  direction: "BUY",
                  orderType: "LIMIT",
                  coreOrderType: "LIMIT",
                  price: "0.5",
                  amount: null,
                  shares: "1",
                },
                notifyContent: `{"n":${number}}`,
                nowMs: atMs,
              });
              if (status === "PENDING") continue;
              const claimed = await queue.claim({
                claimant: "test",
                limit: 100,
                nowMs: atMs,
                leaseMs: 60_000,
              });
              assert.ok(
                claimed.some((request) => request.requestId === requestId),
                requestId,
              );
              await queue.complete(
                [
                  {
                    requestId,
                    status: status as "SUCCESS" | "FAILED",
                    errorMsg: status === "FAILED" ? "no money" : null,
                    notifyContent: `{"n":${number}}`,
                    notifyStatus: notifyStatuses.pending,
                    nextNotifyAtMs: null,
                  },
                ],
                atMs,
                "test",
              );
            }
          }
          const listedTypes = new Set<string>();
          for (const userId of simUsers) {
            const whole = await lists[1]!.list(userId, { page: 1, pageSize: 100 });
            for (const record of whole.records) listedTypes.add(record.type);
            assert.deepEqual(
              await allPages((page) => lists[1]!.list(userId, page)),
              await allPages((page) => lists[0]!.list(userId, page)),
              `notifications of user ${userId}`,
            );
          }
          // Equal lists prove little if both are empty: PostgreSQL's lists the requests' results.
          assert.ok(listedTypes.has("ORDER_RESULT"), "the list shows the queue's finished requests");

          // The legacy bills' queries.
          const bills = await Promise.all(runs.map((run) => run.bills()));
          const ranges: [number, number][] = [
            [0, Number.MAX_SAFE_INTEGER],
            [1_800_000_000_000, (1_800_000_000_000 + nowMs) / 2],
            [(1_800_000_000_000 + nowMs) / 2, nowMs + 1],
          ];
          for (const merchantId of partners[0]!) {
            for (const [fromMs, toMs] of ranges) {
              assert.equal(
                await bills[1]!.unclaimedPool(merchantId, Math.floor(fromMs), Math.floor(toMs)),
                await bills[0]!.unclaimedPool(merchantId, Math.floor(fromMs), Math.floor(toMs)),
                `unclaimed pool of ${merchantId} in [${fromMs}, ${toMs})`,
              );
            }
            for (const name of ["user1", "user5", "nobody"]) {
              assert.equal(
                await bills[1]!.userIdOf(merchantId, name),
                await bills[0]!.userIdOf(merchantId, name),
              );
            }
          }
          // The stream reached what the projection has to get right, or the comparison proves little.
          assert.ok(state.counters.nextTradeId > 10, "the stream traded");
          const ended = [...state.markets.values()].filter((market) =>
            ["settled", "void"].includes(market.status),
          );
          assert.ok(ended.length > 0, "a market was settled or voided");
          assert.ok(
            [...state.exclusiveMarkets.values()].some((market) => market.retiredNoShares > 0n),
            "an exclusive market's No shares were converted",
          );
          assert.ok((await pg.readModels.withdrawals({}, { page: 1, pageSize: 1 })).total > 0, "withdrawals");
        } finally {
          for (const run of runs) await run.close();
        }
      }),
      { numRuns: 3, verbose: 1 },
    );
  });
});
