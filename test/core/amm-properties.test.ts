// Properties of AMM markets over random streams: random pools (liquidity, weights, fees,
// protection), random MARKET BUYs and SELLs by four users, round trips, then settlement or void
// at a random point and every claim. After every command the harness checks that decide changed
// nothing and every invariant holds (money conserved with the platform's funding, every share of
// each option held by a user, the pool or the funder, one complete set per collateral atom). Here,
// besides: the pool's product never decreases; buying then selling the same shares never returns
// more than was paid; the claims and the platform's return are exactly the collateral; the state
// survives the codec and a replay of the journal byte for byte.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createExchangeDecider, exchangeStateCodec, stateHash } from "../../src/core/exchange.js";
import { priceMovedBeyond, quoteBuy, quoteSell } from "../../src/core/pools/amm/fpmm.js";
import { buyAtoms, claimAll, openPoolMarket, sellAtoms } from "./amm-harness.js";
import { atoms, type BinaryMarket, Exchange, eventsOfType, sharesHeld } from "./exchange-harness.js";

const runs = Number(process.env.PREDEX_PROPERTY_RUNS ?? 100);
const users = [1, 2, 3, 4];

type Step =
  | { kind: "buy"; user: number; option: 0 | 1; cents: number }
  | { kind: "sell"; user: number; option: 0 | 1; percent: number }
  | { kind: "roundTrip"; user: number; option: 0 | 1; cents: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("buy" as const),
    user: fc.constantFrom(...users),
    option: fc.constantFrom<0 | 1>(0, 1),
    cents: fc.integer({ min: 1, max: 30_000 }),
  }),
  fc.record({
    kind: fc.constant("sell" as const),
    user: fc.constantFrom(...users),
    option: fc.constantFrom<0 | 1>(0, 1),
    percent: fc.integer({ min: 1, max: 100 }),
  }),
  fc.record({
    kind: fc.constant("roundTrip" as const),
    user: fc.constantFrom(...users),
    option: fc.constantFrom<0 | 1>(0, 1),
    cents: fc.integer({ min: 1, max: 30_000 }),
  }),
);

const pool = fc.record({
  liquidityUsdt: fc.integer({ min: 100, max: 20_000 }),
  liquidityAtoms: fc.integer({ min: 0, max: 99_999_999 }),
  weightYes: fc.integer({ min: 1_000_000, max: 99_000_000 }),
  buyFeeBps: fc.integer({ min: 0, max: 1_000 }),
  sellFeeBps: fc.integer({ min: 0, max: 1_000 }),
  protectionTicks: fc.integer({ min: 1, max: 100 }),
});

const ending = fc.oneof(
  fc.record({ kind: fc.constant("settle" as const), winner: fc.constantFrom<0 | 1>(0, 1) }),
  fc.record({ kind: fc.constant("void" as const) }),
);

function optionOf(market: BinaryMarket, option: 0 | 1): number {
  return option === 0 ? market.yes : market.no;
}

function productOf(exchange: Exchange, market: BinaryMarket): bigint {
  const balances = exchange.state.pools.ammPools.get(market.outcomeId)!.balances;
  return balances[0] * balances[1];
}

describe("AMM properties", () => {
  it("random trading, then settlement or void and every claim: invariants, k, round trips, codec, replay", () => {
    fc.assert(
      fc.property(
        pool,
        fc.array(step, { minLength: 1, maxLength: 80, size: "max" }),
        ending,
        (terms, steps, end) => {
          const exchange = new Exchange("fast");
          const market = openPoolMarket(
            exchange,
            "AMM",
            {
              liquidity: BigInt(terms.liquidityUsdt) * 100_000_000n + BigInt(terms.liquidityAtoms),
              weights: [BigInt(terms.weightYes), 100_000_000n - BigInt(terms.weightYes)],
              buyFeeBps: terms.buyFeeBps,
              sellFeeBps: terms.sellFeeBps,
            },
            { marketOrderPriceProtection: BigInt(terms.protectionTicks) * 1_000_000n },
          );
          for (const user of users) exchange.deposit(user, "1000");
          for (const current of steps) {
            const optionId = optionOf(market, current.option);
            const before = productOf(exchange, market);
            if (current.kind === "sell") {
              const held = sharesHeld(exchange, current.user, optionId);
              const shares = (held * BigInt(current.percent)) / 100n;
              if (shares === 0n) continue;
              exchange.run(sellAtoms(current.user, market, optionId, shares));
            } else {
              const amount = BigInt(current.cents) * 1_000_000n;
              const decided = exchange.run(buyAtoms(current.user, market, optionId, amount));
              if (decided.ok && current.kind === "roundTrip") {
                const [trade] = eventsOfType(decided.events, "PoolTradeExecuted");
                const sold = exchange.run(sellAtoms(current.user, market, optionId, trade!.shares));
                if (sold.ok) {
                  const [back] = eventsOfType(sold.events, "PoolTradeExecuted");
                  assert.ok(
                    back!.availableDelta <= amount,
                    `bought for ${amount}, sold for ${back!.availableDelta}`,
                  );
                }
              }
            }
            assert.ok(productOf(exchange, market) >= before, "the pool's product decreased");
          }
          const collateralBefore = exchange.state.outcomes.get(market.outcomeId)!.collateral;
          let returned: bigint;
          if (end.kind === "void") {
            const events = exchange.accept({ type: "VoidMarket", marketId: market.marketId });
            returned = eventsOfType(events, "PoolSettled")[0]!.returnedToPlatform;
          } else {
            exchange.accept({ type: "CloseMarket", marketId: market.marketId });
            exchange.accept({
              type: "ResolveMarket",
              marketId: market.marketId,
              proposerId: null,
              winners: [{ outcomeId: market.outcomeId, winningOptionId: optionOf(market, end.winner) }],
              challengeWindowMs: null,
              challengeBond: null,
            });
            const events = exchange.accept({
              type: "FinalizeMarket",
              marketId: market.marketId,
              winners: null,
            });
            returned = eventsOfType(events, "PoolSettled")[0]!.returnedToPlatform;
          }
          let claimed = 0n;
          for (const user of users) claimed += claimAll(exchange, user, market);
          assert.equal(
            claimed + returned,
            collateralBefore,
            "claims and the platform's return are the collateral",
          );
          assert.equal(exchange.state.outcomes.get(market.outcomeId)!.collateral, 0n);

          const text = exchangeStateCodec.encode(exchange.state);
          assert.equal(exchangeStateCodec.encode(exchangeStateCodec.decode(text)), text);
          const decider = createExchangeDecider("fast");
          let replayed = decider.initialState();
          for (const event of exchange.journal) replayed = decider.evolve(replayed, event);
          assert.equal(stateHash(replayed), stateHash(exchange.state));
        },
      ),
      { numRuns: runs },
    );
  });

  it("buying then selling the same shares at once never returns more than was paid", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 1_000_000 }),
        fc.integer({ min: 1_000_000, max: 99_000_000 }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.bigInt({ min: 1_000_000n, max: 100_000_000_000_000n }),
        fc.constantFrom<0 | 1>(0, 1),
        (liquidityUsdt, weightYes, buyFeeBps, sellFeeBps, amount, option) => {
          const exchange = new Exchange("fast");
          const market = openPoolMarket(
            exchange,
            "AMM",
            {
              liquidity: BigInt(liquidityUsdt) * 100_000_000n,
              weights: [BigInt(weightYes), 100_000_000n - BigInt(weightYes)],
              buyFeeBps,
              sellFeeBps,
            },
            { marketOrderPriceProtection: atoms("1") },
          );
          exchange.deposit(1, "1000000");
          const optionId = optionOf(market, option);
          const bought = exchange.run(buyAtoms(1, market, optionId, amount));
          if (!bought.ok) return;
          const [trade] = eventsOfType(bought.events, "PoolTradeExecuted");
          const sold = exchange.run(sellAtoms(1, market, optionId, trade!.shares));
          if (!sold.ok) return;
          const [back] = eventsOfType(sold.events, "PoolTradeExecuted");
          assert.ok(back!.availableDelta <= amount);
        },
      ),
      { numRuns: runs * 5 },
    );
  });
});

describe("FPMM math properties", () => {
  const balance = fc.bigInt({ min: 10_000_000_000n, max: 10_000_000_000_000_000n });

  it("a sell returns exactly the largest amount that keeps the product, whatever the sizes", () => {
    fc.assert(
      fc.property(balance, balance, fc.bigInt({ min: 1n, max: 100_000_000_000_000n }), (yes, no, shares) => {
        const balances = [yes, no] as const;
        const { returned } = quoteSell(balances, 0, shares);
        const product = yes * no;
        const own = yes + shares;
        assert.ok(returned >= 0n && returned < no);
        assert.ok((own - returned) * (no - returned) >= product, "keeps k");
        const more = returned + 1n;
        assert.ok(more >= no || (own - more) * (no - more) < product, "one atom more would break k");
      }),
      { numRuns: runs * 10 },
    );
  });

  it("price protection decided in doubles agrees with the exact comparison, at and around the bound", () => {
    fc.assert(
      fc.property(
        balance,
        balance,
        fc.bigInt({ min: 1_000_000n, max: 100_000_000_000_000n }),
        fc.boolean(),
        fc.integer({ min: -3, max: 3 }),
        (yes, no, size, isBuy, nudge) => {
          const before = [yes, no] as const;
          const after = isBuy
            ? quoteBuy(before, 0, size).balancesAfter
            : quoteSell(before, 0, size).balancesAfter;
          // The exact move in atoms of price, and bounds right at it, an atom or so either side.
          const sumBefore = before[0] + before[1];
          const sumAfter = after[0] + after[1];
          const moveScaled = isBuy
            ? after[1] * sumBefore - before[1] * sumAfter
            : before[1] * sumAfter - after[1] * sumBefore;
          const moveAtoms = (moveScaled * 100_000_000n) / (sumBefore * sumAfter);
          for (const bound of [moveAtoms + BigInt(nudge), moveAtoms, 10_000_000n]) {
            if (bound < 0n) continue;
            const exact = moveScaled * 100_000_000n > bound * sumBefore * sumAfter;
            assert.equal(priceMovedBeyond(before, after, 0, isBuy, bound), exact);
          }
        },
      ),
      { numRuns: runs * 10 },
    );
  });
});
