// Property: one exchange holding an order-book market, an AMM market and a parimutuel market at
// once, a random stream over all three (limit orders, pool buys and sells, stakes, withdrawals
// requested and completed), then each market ends at random (settled with either winner, or void,
// while open or once closed) and everyone claims everything. The fast and the reference book run
// in lockstep and decide alike. After every command every invariant holds (the harness checks):
// money is conserved across all three models with the platform's AMM funding counted, every
// frozen atom is backed, and each outcome's shares and stakes match its collateral. At the end no
// collateral is left anywhere and deposits − withdrawals + the platform's net funding equals the
// users' balances plus every fee.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type ExchangeCommand, type ExchangeEvent, stateHash } from "../../src/core/exchange.js";
import { platformPoolFundingNet } from "../../src/core/pools/invariants.js";
import { buyAtoms, openPoolMarket, sellAtoms } from "./amm-harness.js";
import { type BinaryMarket, Exchange, sharesHeld } from "./exchange-harness.js";

const runs = Number(process.env.PREDEX_PROPERTY_RUNS ?? 60);
const users = [1, 2, 3];

type Step =
  | { kind: "limit"; user: number; option: 0 | 1; side: "BUY" | "SELL"; tick: number; lots: number }
  | { kind: "amm"; user: number; option: 0 | 1; sell: boolean; cents: number; percent: number }
  | { kind: "stake"; user: number; option: 0 | 1; cents: number }
  | { kind: "withdraw"; user: number; cents: number; complete: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("limit" as const),
    user: fc.constantFrom(...users),
    option: fc.constantFrom<0 | 1>(0, 1),
    side: fc.constantFrom<"BUY" | "SELL">("BUY", "SELL"),
    tick: fc.integer({ min: 30, max: 70 }),
    lots: fc.integer({ min: 100, max: 30_000 }),
  }),
  fc.record({
    kind: fc.constant("amm" as const),
    user: fc.constantFrom(...users),
    option: fc.constantFrom<0 | 1>(0, 1),
    sell: fc.boolean(),
    cents: fc.integer({ min: 1, max: 5_000 }),
    percent: fc.integer({ min: 1, max: 100 }),
  }),
  fc.record({
    kind: fc.constant("stake" as const),
    user: fc.constantFrom(...users),
    option: fc.constantFrom<0 | 1>(0, 1),
    cents: fc.integer({ min: 1, max: 5_000 }),
  }),
  fc.record({
    kind: fc.constant("withdraw" as const),
    user: fc.constantFrom(...users),
    cents: fc.integer({ min: 1, max: 10_000 }),
    complete: fc.boolean(),
  }),
);
type Ending = { kind: "settle"; winner: 0 | 1 } | { kind: "void"; closed: boolean };
const ending: fc.Arbitrary<Ending> = fc.oneof(
  fc.record({ kind: fc.constant("settle" as const), winner: fc.constantFrom<0 | 1>(0, 1) }),
  fc.record({ kind: fc.constant("void" as const), closed: fc.boolean() }),
);

function both(fast: Exchange, reference: Exchange, command: ExchangeCommand): ExchangeEvent[] | null {
  const a = fast.run(command);
  const b = reference.run(command);
  assert.deepEqual(a, b, "both books decide alike");
  assert.equal(stateHash(fast.state), stateHash(reference.state), "both books hold the same state");
  return a.ok ? a.events : null;
}

function optionOf(market: BinaryMarket, option: 0 | 1): number {
  return option === 0 ? market.yes : market.no;
}

describe("order book, AMM and parimutuel markets side by side", () => {
  it("conserve money through random trading, withdrawals, every ending and every claim", () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 80, size: "max" }),
        fc.tuple(ending, ending, ending),
        (steps, endings) => {
          const fast = new Exchange("fast");
          const reference = new Exchange("reference");
          const run = (command: ExchangeCommand) => both(fast, reference, command);
          let markets: BinaryMarket[] = [];
          for (const exchange of [fast, reference]) {
            markets = [
              exchange.openMarket({ takerFeeBps: 30 }),
              openPoolMarket(exchange, "AMM", { liquidity: 10_000_000_000n, buyFeeBps: 50, sellFeeBps: 50 }),
              openPoolMarket(exchange, "parimutuel", { settlementFeeBps: 200 }),
            ];
            for (const user of users) exchange.deposit(user, "500");
          }
          const [book, amm, pool] = markets as [BinaryMarket, BinaryMarket, BinaryMarket];
          for (const current of steps) {
            if (current.kind === "limit") {
              const price = (current.tick / 100).toFixed(2);
              const shares = (current.lots / 10_000).toFixed(4);
              run(
                fast.limit(current.user, book, optionOf(book, current.option), current.side, price, shares),
              );
            } else if (current.kind === "amm") {
              const optionId = optionOf(amm, current.option);
              const held = sharesHeld(fast, current.user, optionId);
              const shares = (held * BigInt(current.percent)) / 100n;
              if (current.sell && shares > 0n) run(sellAtoms(current.user, amm, optionId, shares));
              else run(buyAtoms(current.user, amm, optionId, BigInt(current.cents) * 1_000_000n));
            } else if (current.kind === "stake") {
              run(
                buyAtoms(
                  current.user,
                  pool,
                  optionOf(pool, current.option),
                  BigInt(current.cents) * 1_000_000n,
                ),
              );
            } else {
              const events = run({
                type: "RequestWithdrawal",
                userId: current.user,
                amount: BigInt(current.cents) * 1_000_000n,
                fee: 1_000_000n,
                address: `0x${"a".repeat(40)}`,
              });
              const requested = events?.find((event) => event.type === "WithdrawalRequested");
              if (requested?.type === "WithdrawalRequested" && current.complete) {
                run({ type: "ApproveWithdrawal", withdrawalId: requested.withdrawalId });
                run({ type: "CompleteWithdrawal", withdrawalId: requested.withdrawalId });
              }
            }
          }
          markets.forEach((market, index) => {
            const end = endings[index]!;
            if (end.kind === "void") {
              if (end.closed) assert.ok(run({ type: "CloseMarket", marketId: market.marketId }));
              assert.ok(run({ type: "VoidMarket", marketId: market.marketId }));
              return;
            }
            assert.ok(run({ type: "CloseMarket", marketId: market.marketId }));
            assert.ok(
              run({
                type: "ResolveMarket",
                marketId: market.marketId,
                proposerId: null,
                winners: [{ outcomeId: market.outcomeId, winningOptionId: optionOf(market, end.winner) }],
                challengeWindowMs: null,
                challengeBond: null,
              }),
            );
            assert.ok(run({ type: "FinalizeMarket", marketId: market.marketId, winners: null }));
          });
          for (const market of markets)
            for (const userId of users) run({ type: "ClaimMarket", userId, marketId: market.marketId });

          const { state } = fast;
          for (const outcome of state.outcomes.values()) assert.equal(outcome.collateral, 0n);
          let balances = 0n;
          for (const account of state.accounts.values()) balances += account.available + account.frozen;
          const { deposited, withdrawn, feeIncome, withdrawalFeeIncome } = state.totals;
          assert.equal(
            deposited - withdrawn + platformPoolFundingNet(state),
            balances + feeIncome + withdrawalFeeIncome,
          );
        },
      ),
      { numRuns: runs },
    );
  });
});
