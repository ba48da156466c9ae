// Properties of parimutuel markets over random stakes by four users, a random settlement fee and
// a random ending (either winner, or void): after every command every invariant holds (money
// conserved, the stakes are the positions and the pool is the collateral). At the end the claims
// plus the fee plus the dust are exactly the pool; every winner got ⌊stake × (pool − fee) /
// winning stake⌋; the dust is less than one atom per winning position; with no winning stake or
// in a void market every stake came back whole; the state survives the codec and a replay.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createExchangeDecider, exchangeStateCodec, stateHash } from "../../src/core/exchange.js";
import { buyAtoms, claimAll, openPoolMarket } from "./amm-harness.js";
import { Exchange, eventsOfType, sharesHeld } from "./exchange-harness.js";

const runs = Number(process.env.PREDEX_PROPERTY_RUNS ?? 100);
const users = [1, 2, 3, 4];

const stake = fc.record({
  user: fc.constantFrom(...users),
  option: fc.constantFrom<0 | 1>(0, 1),
  atoms: fc.bigInt({ min: 1_000_000n, max: 50_000_000_000n }),
});
const ending = fc.oneof(
  fc.record({ kind: fc.constant("settle" as const), winner: fc.constantFrom<0 | 1>(0, 1) }),
  fc.record({ kind: fc.constant("void" as const) }),
);

describe("parimutuel properties", () => {
  it("payouts are the pool less the fee, pro rata and rounded down, with only accounted dust", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000 }),
        fc.array(stake, { minLength: 0, maxLength: 60, size: "max" }),
        ending,
        (settlementFeeBps, stakes, end) => {
          const exchange = new Exchange("fast");
          const market = openPoolMarket(exchange, "parimutuel", { settlementFeeBps });
          for (const user of users) exchange.deposit(user, "10000");
          for (const current of stakes) {
            const optionId = current.option === 0 ? market.yes : market.no;
            exchange.accept(buyAtoms(current.user, market, optionId, current.atoms));
          }
          const pool = exchange.state.outcomes.get(market.outcomeId)!.collateral;
          const held = new Map(
            users.flatMap((user) => [
              [`${user}:${market.yes}`, sharesHeld(exchange, user, market.yes)],
              [`${user}:${market.no}`, sharesHeld(exchange, user, market.no)],
            ]),
          );
          let fee = 0n;
          let dust = 0n;
          let winningOptionId: number | null = null;
          if (end.kind === "void") {
            exchange.accept({ type: "VoidMarket", marketId: market.marketId });
          } else {
            winningOptionId = end.winner === 0 ? market.yes : market.no;
            exchange.accept({ type: "CloseMarket", marketId: market.marketId });
            exchange.accept({
              type: "ResolveMarket",
              marketId: market.marketId,
              proposerId: null,
              winners: [{ outcomeId: market.outcomeId, winningOptionId }],
              challengeWindowMs: null,
              challengeBond: null,
            });
            const events = exchange.accept({
              type: "FinalizeMarket",
              marketId: market.marketId,
              winners: null,
            });
            const [settled] = eventsOfType(events, "PoolSettled");
            fee = settled!.fee;
            dust = settled!.dust;
          }
          const winningStake =
            winningOptionId === null
              ? 0n
              : users.reduce((sum, user) => sum + held.get(`${user}:${winningOptionId}`)!, 0n);
          let claimed = 0n;
          let winners = 0n;
          for (const user of users) {
            const paid = claimAll(exchange, user, market);
            claimed += paid;
            const mine = held.get(`${user}:${market.yes}`)! + held.get(`${user}:${market.no}`)!;
            if (winningOptionId === null || winningStake === 0n) {
              assert.equal(paid, mine, "every stake comes back whole");
            } else {
              const stakeOnWinner = held.get(`${user}:${winningOptionId}`)!;
              if (stakeOnWinner > 0n) winners++;
              assert.equal(paid, (stakeOnWinner * (pool - fee)) / winningStake);
            }
          }
          assert.equal(claimed + fee + dust, pool, "claims + fee + dust = the pool");
          assert.ok(dust >= 0n && (dust === 0n || dust < winners), `dust ${dust} for ${winners} winners`);
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
});
