// Claims in the core: a winning share pays exactly 1 USDT from the collateral, a losing one
// nothing, a void market 0.5 a share; each position once; by position or by market.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { balanceOf, type ExchangeCommand, positionsOfUser } from "../../src/core/exchange.js";
import { atoms, type BinaryMarket, bookKinds, Exchange, mintPairs } from "./exchange-harness.js";

const alice = 1;
const bob = 2;
const carol = 3;

function settle(exchange: Exchange, market: BinaryMarket, winner: number): void {
  exchange.accept({ type: "CloseMarket", marketId: market.marketId });
  exchange.accept({
    type: "ResolveMarket",
    marketId: market.marketId,
    proposerId: null,
    winners: [{ outcomeId: market.outcomeId, winningOptionId: winner }],
    challengeWindowMs: null,
    challengeBond: null,
  });
  exchange.accept({ type: "FinalizeMarket", marketId: market.marketId, winners: null });
}

const positionIdOf = (exchange: Exchange, userId: number, optionId: number): number =>
  exchange.state.accounts.get(userId)!.positions.get(optionId)!.positionId;

const claim = (userId: number, positionId: number): ExchangeCommand => ({
  type: "ClaimPosition",
  userId,
  positionId,
});

for (const kind of bookKinds) {
  describe(`claims (${kind} book)`, () => {
    /** Alice holds 10 Yes, Bob 10 No (each paid 5 USDT); Alice then sold 4 Yes to Carol at 0.6. */
    function given() {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      exchange.deposit(alice, "100");
      exchange.deposit(bob, "100");
      exchange.deposit(carol, "100");
      mintPairs(exchange, market, alice, bob, "10");
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.6", "4"));
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.6", "4"));
      return { exchange, market };
    }

    it("refuses a claim before the market is settled", () => {
      const { exchange, market } = given();
      exchange.refuse(claim(alice, positionIdOf(exchange, alice, market.yes)), "MARKET_NOT_SETTLED");
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.refuse(claim(alice, positionIdOf(exchange, alice, market.yes)), "MARKET_NOT_SETTLED");
      exchange.refuse(
        { type: "ClaimMarket", userId: alice, marketId: market.marketId },
        "MARKET_NOT_SETTLED",
      );
    });

    it("pays each winning share exactly 1 USDT, once, out of the collateral", () => {
      const { exchange, market } = given();
      settle(exchange, market, market.yes);
      const before = balanceOf(exchange.state, alice).available;
      const [claimed] = exchange.accept(claim(alice, positionIdOf(exchange, alice, market.yes)));
      assert.ok(claimed?.type === "PositionClaimed");
      assert.deepEqual([claimed.shares, claimed.amount], [atoms("6"), atoms("6")]);
      assert.match(claimed.transactionId, /^\d+$/);
      assert.equal(balanceOf(exchange.state, alice).available, before + atoms("6"));
      assert.equal(exchange.state.outcomes.get(market.outcomeId)!.collateral, atoms("4"));
      exchange.refuse(claim(alice, positionIdOf(exchange, alice, market.yes)), "ALREADY_CLAIMED");
      exchange.accept(claim(carol, positionIdOf(exchange, carol, market.yes)));
      assert.equal(exchange.state.outcomes.get(market.outcomeId)!.collateral, 0n);
      // Alice: 100 − 5 (mint) + 2.4 (sale) + 6 (claim); Carol: 100 − 2.4 + 4.
      assert.equal(balanceOf(exchange.state, alice).total, atoms("103.4"));
      assert.equal(balanceOf(exchange.state, carol).total, atoms("101.6"));
      const [view] = positionsOfUser(exchange.state, alice, market.marketId);
      assert.deepEqual([view?.status, view?.claimable], ["claimed", 0n]);
    });

    it("a losing position has nothing to claim, and stays settled", () => {
      const { exchange, market } = given();
      settle(exchange, market, market.yes);
      exchange.refuse(claim(bob, positionIdOf(exchange, bob, market.no)), "NOTHING_TO_CLAIM");
      exchange.refuse({ type: "ClaimMarket", userId: bob, marketId: market.marketId }, "NOTHING_TO_CLAIM");
      const [view] = positionsOfUser(exchange.state, bob, market.marketId);
      assert.deepEqual([view?.status, view?.claimable], ["settled", 0n]);
    });

    it("another user's or an unknown position is not found", () => {
      const { exchange, market } = given();
      settle(exchange, market, market.yes);
      exchange.refuse(claim(bob, positionIdOf(exchange, alice, market.yes)), "POSITION_NOT_FOUND");
      exchange.refuse(claim(alice, 999), "POSITION_NOT_FOUND");
      exchange.refuse(claim(alice, 0), "POSITION_NOT_FOUND");
    });

    it("a void market pays 0.5 for every share of either option", () => {
      const { exchange, market } = given();
      exchange.accept({ type: "VoidMarket", marketId: market.marketId });
      const [yes] = exchange.accept(claim(alice, positionIdOf(exchange, alice, market.yes)));
      const [no] = exchange.accept(claim(bob, positionIdOf(exchange, bob, market.no)));
      const [carols] = exchange.accept({ type: "ClaimMarket", userId: carol, marketId: market.marketId });
      assert.deepEqual(
        [yes, no, carols].map((event) => (event?.type === "PositionClaimed" ? event.amount : null)),
        [atoms("3"), atoms("5"), atoms("2")],
      );
      assert.equal(exchange.state.outcomes.get(market.outcomeId)!.collateral, 0n);
      // Everyone got back what they paid in, less what they received from each other.
      assert.equal(balanceOf(exchange.state, alice).total, atoms("100.4"));
      assert.equal(balanceOf(exchange.state, bob).total, atoms("100"));
      assert.equal(balanceOf(exchange.state, carol).total, atoms("99.6"));
    });

    it("claiming by market pays every claimable position in one transaction, then refuses", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      exchange.deposit(alice, "100");
      exchange.deposit(bob, "100");
      // Alice holds both sides: 3 Yes and 2 No.
      mintPairs(exchange, market, alice, bob, "3");
      mintPairs(exchange, market, bob, alice, "2");
      exchange.accept({ type: "VoidMarket", marketId: market.marketId });
      const events = exchange.accept({ type: "ClaimMarket", userId: alice, marketId: market.marketId });
      assert.deepEqual(
        events.map((event) =>
          event.type === "PositionClaimed" ? [event.amount, event.transactionId] : null,
        ),
        [
          [atoms("1.5"), events[0]?.type === "PositionClaimed" ? events[0].transactionId : ""],
          [atoms("1"), events[0]?.type === "PositionClaimed" ? events[0].transactionId : ""],
        ],
      );
      exchange.refuse({ type: "ClaimMarket", userId: alice, marketId: market.marketId }, "ALREADY_CLAIMED");
      exchange.refuse({ type: "ClaimMarket", userId: alice, marketId: 999 }, "MARKET_NOT_FOUND");
      assert.equal(balanceOf(exchange.state, alice).total, atoms("100"));
    });
  });
}
