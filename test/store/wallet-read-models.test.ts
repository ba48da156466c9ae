// Property: across random wallet operations (deposits, some with a txHash already used; withdrawal
// requests that fit or not; cancels by the owner or another user; approve, reject and complete in
// any order) mixed with trading, sent through the durable engine a few at a time,
//  - the core's ledger invariant holds: deposits − withdrawals = Σ available + Σ frozen + Σ collateral
//    + trading fees + withdrawal fees;
//  - the read models (SQLite and PostgreSQL, the same suite) agree with the engine: each user's ledger entries add up to its
//    available and frozen balances; deposits, completed withdrawals and fees in the read models
//    add up to the core's totals; the withdrawals still held by the core are exactly the PENDING and
//    APPROVED rows.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  checkInvariants,
  type ExchangeCommand,
  type ExchangeState,
  limitOrderCommand,
  marketOrderCommand,
  openOrdersOfUser,
} from "../../src/core/exchange.js";
import { ledgerEntryTypes } from "../../src/store/exchange-read-models.js";
import { createOpenMarket, type OpenBinaryMarket } from "./exchange-run.js";
import {
  type ExchangeRun,
  type ExchangeStoreHarness,
  exchangeStoreHarnesses,
} from "./exchange-store-harness.js";

const unit = 100_000_000n;
const cent = 1_000_000n;
const users = [1, 2, 3, 4] as const;
const address = `0x${"12".repeat(20)}`;

type Step =
  | { kind: "deposit"; user: number; cents: number; tx: number }
  | { kind: "limit"; user: number; option: 0 | 1; side: "BUY" | "SELL"; tick: number; lots: number }
  | { kind: "market"; user: number; option: 0 | 1; side: "BUY" | "SELL"; cents: number }
  | { kind: "cancelOrder"; user: number; pick: number }
  | { kind: "withdraw"; user: number; cents: number; feeCents: number }
  | { kind: "cancelWithdrawal"; user: number; pick: number }
  | {
      kind: "operator";
      action: "ApproveWithdrawal" | "RejectWithdrawal" | "CompleteWithdrawal";
      pick: number;
    };

const user = fc.constantFrom(...users);
const option = fc.constantFrom<0 | 1>(0, 1);
const side = fc.constantFrom<"BUY" | "SELL">("BUY", "SELL");
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("deposit" as const),
      user,
      cents: fc.integer({ min: 1, max: 50_000 }),
      // A small range, so the same txHash comes back and must be refused.
      tx: fc.integer({ min: 0, max: 30 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("limit" as const),
      user,
      option,
      side,
      tick: fc.integer({ min: 30, max: 70 }),
      lots: fc.integer({ min: 1, max: 300 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("market" as const),
      user,
      option,
      side,
      cents: fc.integer({ min: 100, max: 5_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelOrder" as const), user, pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("withdraw" as const),
      user,
      cents: fc.integer({ min: 1, max: 40_000 }),
      feeCents: fc.constantFrom(0, 100),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("cancelWithdrawal" as const), user, pick: fc.nat() }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("operator" as const),
      action: fc.constantFrom("ApproveWithdrawal", "RejectWithdrawal", "CompleteWithdrawal"),
      pick: fc.nat(),
    }),
  },
);

interface Run {
  readonly store: ExchangeRun;
  readonly market: OpenBinaryMarket;
}

async function startRun(harness: ExchangeStoreHarness): Promise<Run> {
  const store = await harness.open(() => 1_800_000_000_000);
  const market = await createOpenMarket(store.engine, { title: "Wallet", makerFeeBps: 20, takerFeeBps: 50 });
  return { store, market };
}

/** The command of a step, given the committed state (to pick orders and withdrawals that exist). */
function commandOf(step: Step, state: ExchangeState, market: Run["market"]): ExchangeCommand | undefined {
  const held = [...state.withdrawals.keys()];
  // Past the held ones: an id that finished already, or was never issued.
  const withdrawalAt = (pick: number) =>
    held[pick % (held.length + 2)] ?? state.counters.nextWithdrawalId - (pick % 2);
  switch (step.kind) {
    case "deposit":
      return {
        type: "Deposit",
        userId: step.user,
        amount: BigInt(step.cents) * cent,
        txHash: `0x${step.tx}`,
      };
    case "limit":
      return limitOrderCommand({
        userId: step.user,
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market.options[step.option],
        side: step.side,
        limitPrice: BigInt(step.tick) * cent,
        shares: BigInt(step.lots) * cent,
      });
    case "market":
      return marketOrderCommand({
        userId: step.user,
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market.options[step.option],
        side: step.side,
        ...(step.side === "BUY"
          ? { amount: BigInt(step.cents) * cent }
          : { shares: BigInt(step.cents) * cent }),
      });
    case "cancelOrder": {
      const open = openOrdersOfUser(state, step.user);
      if (open.length === 0) return undefined;
      return { type: "CancelOrder", userId: step.user, orderId: open[step.pick % open.length]!.orderId };
    }
    case "withdraw":
      return {
        type: "RequestWithdrawal",
        userId: step.user,
        amount: BigInt(step.cents) * cent,
        fee: BigInt(step.feeCents) * cent,
        address,
      };
    case "cancelWithdrawal":
      return { type: "CancelWithdrawal", userId: step.user, withdrawalId: withdrawalAt(step.pick) };
    case "operator":
      return { type: step.action, withdrawalId: withdrawalAt(step.pick) };
    default: {
      const unreachable: never = step;
      throw new Error(`unknown step ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The first column of the query's one row, as bigint (0 for NULL; a PostgreSQL sum is numeric text). */
async function sumOf(store: ExchangeRun, sql: string, ...params: unknown[]): Promise<bigint> {
  const row = (await store.query(sql, ...params))[0];
  const value = row === undefined ? null : Object.values(row)[0];
  return value === null || value === undefined ? 0n : BigInt(value as bigint | string);
}

async function checkAgreement(run: Run): Promise<void> {
  const { store } = run;
  const { engine } = store;
  const state = await engine.read((live) => live);
  assert.deepEqual(checkInvariants(state), []);

  // The ledger invariant, spelled out.
  let balances = 0n;
  for (const account of state.accounts.values()) balances += account.available + account.frozen;
  let collateral = 0n;
  for (const outcome of state.outcomes.values()) collateral += outcome.collateral;
  const { deposited, withdrawn, feeIncome, withdrawalFeeIncome } = state.totals;
  assert.equal(deposited - withdrawn, balances + collateral + feeIncome + withdrawalFeeIncome);

  const { readModels } = store;
  // Each user's ledger adds up to its balances, and the balances table agrees.
  for (const account of state.accounts.values()) {
    const userId = account.userId;
    const sums = {
      available: await sumOf(store, "SELECT sum(amount) FROM exchange_ledger WHERE user_id = ?", userId),
      frozen: await sumOf(store, "SELECT sum(frozen_delta) FROM exchange_ledger WHERE user_id = ?", userId),
    };
    assert.deepEqual(
      [sums.available, sums.frozen],
      [account.available, account.frozen],
      `user ${userId} ledger`,
    );
    // The history filtered by each type finds exactly that type's entries, newest first.
    for (const type of ledgerEntryTypes) {
      const expected = (
        await store.query(
          "SELECT entry_id FROM exchange_ledger WHERE user_id = ? AND type = ? ORDER BY entry_id DESC",
          userId,
          type,
        )
      ).map((row) => Number(row.entry_id));
      const found = await readModels.ledger(userId, { page: 1, pageSize: 100 }, { type });
      assert.equal(found.total, expected.length, `user ${userId} ${type} entries`);
      assert.deepEqual(
        found.records.map((entry) => entry.entryId),
        expected.slice(0, 100),
      );
    }
    const row = await store.balanceRow(userId);
    assert.deepEqual(
      [row?.available, row?.frozen],
      [account.available, account.frozen],
      `user ${userId} balance`,
    );
  }

  // Totals: deposits, withdrawals and fees as the read models see them.
  assert.equal(await sumOf(store, "SELECT sum(amount) FROM exchange_deposits"), deposited);
  assert.equal(
    await sumOf(store, "SELECT sum(amount) FROM exchange_ledger WHERE type = 'DEPOSIT'"),
    deposited,
  );
  assert.equal(
    await sumOf(store, "SELECT sum(amount) FROM exchange_withdrawals WHERE status = 'COMPLETED'"),
    withdrawn,
  );
  assert.equal(
    await sumOf(store, "SELECT sum(amount) FROM exchange_ledger WHERE type = 'WITHDRAWAL'"),
    -withdrawn,
  );
  assert.equal(
    await sumOf(store, "SELECT sum(fee) FROM exchange_withdrawals WHERE status = 'COMPLETED'"),
    withdrawalFeeIncome,
  );
  assert.equal(
    await sumOf(store, "SELECT sum(amount) FROM exchange_ledger WHERE type = 'WITHDRAWAL_FEE'"),
    -withdrawalFeeIncome,
  );
  assert.equal(await sumOf(store, "SELECT sum(amount) FROM exchange_ledger WHERE type = 'FEE'"), -feeIncome);

  // The withdrawals the core still holds are exactly the PENDING and APPROVED rows.
  const heldRows = (await store.query(
    "SELECT withdrawal_id, user_id, amount, fee, status FROM exchange_withdrawals WHERE status IN ('PENDING', 'APPROVED') ORDER BY withdrawal_id",
  )) as Array<{ withdrawal_id: bigint; user_id: bigint; amount: bigint; fee: bigint; status: string }>;
  assert.deepEqual(
    heldRows.map((row) => [Number(row.withdrawal_id), Number(row.user_id), row.amount, row.fee, row.status]),
    [...state.withdrawals.values()].map((held) => [
      held.withdrawalId,
      held.userId,
      held.amount,
      held.fee,
      held.status,
    ]),
  );
  assert.equal(
    await sumOf(store, "SELECT count(*) FROM exchange_withdrawals"),
    BigInt(state.counters.nextWithdrawalId - 1),
    "one row per withdrawal ever requested",
  );
}

for (const harness of exchangeStoreHarnesses())
  describe(`wallet read models: ${harness.name}`, { skip: harness.skip }, () => {
    it("keep the ledger invariant and agree with the engine across random wallet operations and trading", async () => {
      /** How often each command was accepted or refused (by code) and each event happened, over all runs. */
      const seen = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 20, maxLength: 250, size: "max" }), async (steps) => {
          let run = await startRun(harness);
          try {
            // Everyone starts with some money, so withdrawals and orders have something to act on.
            for (const userId of users) {
              await run.store.engine.submit({
                type: "Deposit",
                userId,
                amount: 500n * unit,
                txHash: `0xseed-${userId}`,
              });
            }
            // A few commands in flight at once, so a batch holds several and later ones see earlier ones' state.
            for (let index = 0; index < steps.length; index += 4) {
              const state = await run.store.engine.read((live) => live);
              const commands = steps
                .slice(index, index + 4)
                .map((one) => commandOf(one, state, run.market))
                .filter((command) => command !== undefined);
              const results = await Promise.all(commands.map((command) => run.store.engine.submit(command)));
              for (const [at, result] of results.entries()) {
                const type = commands[at]!.type;
                const outcome = result.ok ? type : `${type}:${result.rejection.code}`;
                seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
                if (result.ok)
                  for (const event of result.events) seen.set(event.type, (seen.get(event.type) ?? 0) + 1);
              }
              if (index % 40 === 0) await checkAgreement(run);
            }
            await checkAgreement(run);
            // A restart rebuilds the engine from snapshot + journal; the read models still agree with it.
            const restarted = { ...run, store: await run.store.restart() };
            run = restarted;
            await checkAgreement(restarted);
          } finally {
            await run.store.close();
          }
        }),
        { numRuns: 30 },
      );
      if (process.env.PREDEX_TEST_VERBOSE) console.log([...seen].sort());
      // The runs went through every path that matters, not only refusals.
      for (const wanted of [
        "TradeExecuted",
        "WithdrawalRequested",
        "WithdrawalApproved",
        "WithdrawalCompleted",
        "WithdrawalReleased",
        "Deposit:DEPOSIT_DUPLICATE",
        "RequestWithdrawal:INSUFFICIENT_BALANCE",
        "CancelWithdrawal:WITHDRAWAL_NOT_FOUND",
        "CompleteWithdrawal:WITHDRAWAL_NOT_APPROVED",
      ]) {
        assert.ok((seen.get(wanted) ?? 0) > 0, `no ${wanted} in ${JSON.stringify([...seen])}`);
      }
    });
  });
