// Exclusive markets in the core (DESIGN §10): created only as order books of two outcomes or more,
// resolved with exactly one winning outcome, and ConvertPositions turning No shares of k outcomes
// into Yes shares of the others plus k − 1 USDT a share. The harness checks after every command
// that decide left the state alone, a refusal changed nothing and every invariant holds (money
// conserved with the conversions' advance, Yes = No + retired per outcome).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  balanceOf,
  createMarketCommand,
  type ExchangeCommand,
  marketById,
  type PositionsConvertedEvent,
} from "../../src/core/exchange.js";
import { atoms, bookKinds, Exchange, eventsOfType } from "./exchange-harness.js";
import { buyNo, convert, names, openExclusive } from "./exclusive-harness.js";

const alice = 1;
const bob = 2;
const carol = 3;
const held = (exchange: Exchange, userId: number, optionId: number): bigint => {
  const position = exchange.state.accounts.get(userId)?.positions.get(optionId);
  return position === undefined ? 0n : position.shares + position.frozenShares;
};

for (const kind of bookKinds) {
  describe(`exclusive markets (${kind} book)`, () => {
    it("is created only as an order book with at least two outcomes", () => {
      const exchange = new Exchange(kind);
      exchange.refuse(
        createMarketCommand({ title: "One", outcomes: [{ name: "Only", options: null }], exclusive: true }),
        "INVALID_INPUT",
      );
      exchange.refuse(
        createMarketCommand({
          title: "Pool",
          modelType: "parimutuel",
          outcomes: [
            { name: "A", options: null },
            { name: "B", options: null },
          ],
          exclusive: true,
        }),
        "INVALID_INPUT",
      );
      const market = openExclusive(exchange, 2);
      assert.equal(marketById(exchange.state, market.marketId)?.exclusive, true);
      const plain = exchange.openMarket();
      assert.equal(marketById(exchange.state, plain.marketId)?.exclusive, false);
    });

    it("turns the No of one outcome into the Yes of every other, with no USDT", () => {
      const exchange = new Exchange(kind);
      const market = openExclusive(exchange);
      exchange.deposit(alice, "100");
      exchange.deposit(bob, "100");
      buyNo(exchange, market, 0, alice, bob, "0.7", "10");
      const before = balanceOf(exchange.state, alice).available;
      const [converted] = exchange.accept(convert(alice, market, [0], "4"));
      assert.ok(converted?.type === "PositionsConverted");
      assert.equal(converted.collateral, 0n);
      assert.equal(balanceOf(exchange.state, alice).available, before);
      assert.equal(held(exchange, alice, market.no[0]!), atoms("6"));
      for (const index of [1, 2, 3]) assert.equal(held(exchange, alice, market.yes[index]!), atoms("4"));
      // The new Yes shares carry the cost of the No shares they came from: 4 × 0.7 = 2.8.
      const cost = [1, 2, 3]
        .map((index) => exchange.state.accounts.get(alice)!.positions.get(market.yes[index]!)!.cost)
        .reduce((sum, each) => sum + each, 0n);
      assert.equal(cost, atoms("2.8"));
      assert.equal(exchange.state.accounts.get(alice)!.positions.get(market.no[0]!)!.realizedPnl, 0n);
    });

    it("pays shares × (k − 1) USDT for the No of k outcomes", () => {
      const exchange = new Exchange(kind);
      const market = openExclusive(exchange);
      for (const user of [alice, bob, carol]) exchange.deposit(user, "100");
      buyNo(exchange, market, 0, alice, bob, "0.8", "10");
      buyNo(exchange, market, 1, alice, carol, "0.8", "10");
      buyNo(exchange, market, 2, alice, carol, "0.6", "10");
      const before = balanceOf(exchange.state, alice).available;
      const events = exchange.accept(convert(alice, market, [0, 1, 2], "10"));
      const [converted] = eventsOfType(events, "PositionsConverted") as PositionsConvertedEvent[];
      assert.equal(converted!.collateral, atoms("20"));
      assert.equal(converted!.transactionId.length > 0, true);
      assert.equal(balanceOf(exchange.state, alice).available, before + atoms("20"));
      assert.equal(held(exchange, alice, market.yes[3]!), atoms("10"));
      for (const index of [0, 1, 2]) assert.equal(held(exchange, alice, market.no[index]!), 0n);
      // Cost 22 of No shares: 20 comes back as USDT, 2 stays in the Yes of Dale; nothing realised.
      const dale = exchange.state.accounts.get(alice)!.positions.get(market.yes[3]!)!;
      assert.equal(dale.cost, atoms("2"));
    });

    it("realises the USDT beyond the cost released as PnL", () => {
      const exchange = new Exchange(kind);
      const market = openExclusive(exchange, 3);
      for (const user of [alice, bob]) exchange.deposit(user, "100");
      buyNo(exchange, market, 0, alice, bob, "0.3", "10");
      buyNo(exchange, market, 1, alice, bob, "0.3", "10");
      exchange.accept(convert(alice, market, [0, 1], "10"));
      const positions = exchange.state.accounts.get(alice)!.positions;
      // Cost 6, USDT 10: 4 realised, the new Yes of Cyd costs nothing.
      const realised = positions.get(market.no[0]!)!.realizedPnl + positions.get(market.no[1]!)!.realizedPnl;
      assert.equal(realised, atoms("4"));
      assert.equal(positions.get(market.yes[2]!)!.cost, 0n);
    });

    it("refuses a market that is not exclusive or not open, a bad list and too few shares, changing nothing", () => {
      const exchange = new Exchange(kind);
      const plain = exchange.openMarket();
      const market = openExclusive(exchange);
      for (const user of [alice, bob]) exchange.deposit(user, "100");
      buyNo(exchange, market, 0, alice, bob, "0.7", "10");
      buyNo(exchange, market, 1, alice, bob, "0.7", "2");
      exchange.refuse(
        {
          type: "ConvertPositions",
          userId: alice,
          marketId: plain.marketId,
          outcomeIds: [plain.outcomeId],
          shares: atoms("1"),
        },
        "MARKET_NOT_EXCLUSIVE",
      );
      exchange.refuse({ ...convert(alice, market, [0], "1"), marketId: 999 }, "MARKET_NOT_FOUND");
      exchange.refuse(convert(alice, market, [0], "11"), "INSUFFICIENT_SHARES");
      exchange.refuse(convert(alice, market, [0, 1], "3"), "INSUFFICIENT_SHARES");
      exchange.refuse(convert(bob, market, [0], "1"), "INSUFFICIENT_SHARES");
      exchange.refuse(convert(alice, market, [], "1"), "INVALID_INPUT");
      exchange.refuse(convert(alice, market, [0, 0], "1"), "INVALID_INPUT");
      exchange.refuse(convert(alice, market, [0, 1, 2, 3], "1"), "INVALID_INPUT");
      exchange.refuse(
        { ...convert(alice, market, [0], "1"), outcomeIds: [plain.outcomeId] },
        "INVALID_INPUT",
      );
      exchange.refuse(convert(alice, market, [0], "0"), "INVALID_INPUT");
      exchange.refuse({ ...convert(alice, market, [0], "1"), shares: 1n }, "SHARES_NOT_ON_STEP");
      // Shares in a resting SELL order do not convert.
      const where = { marketId: market.marketId, outcomeId: market.outcomeIds[0]!, yes: 0, no: 0 };
      exchange.accept(exchange.limit(alice, where, market.no[0]!, "SELL", "0.9", "8"));
      exchange.refuse(convert(alice, market, [0], "3"), "INSUFFICIENT_SHARES");
      exchange.accept(convert(alice, market, [0], "2"));
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.refuse(convert(alice, market, [0], "1"), "MARKET_NOT_OPEN");
    });

    it("refuses a conversion in a draft market", () => {
      const exchange = new Exchange(kind);
      const [created] = exchange.accept(
        createMarketCommand({
          title: "Draft",
          outcomes: [
            { name: "A", options: null },
            { name: "B", options: null },
          ],
          exclusive: true,
        }),
      );
      assert.ok(created?.type === "MarketCreated");
      exchange.refuse(
        {
          type: "ConvertPositions",
          userId: alice,
          marketId: created.marketId,
          outcomeIds: [created.outcomes[0]!.outcomeId],
          shares: atoms("1"),
        },
        "MARKET_NOT_OPEN",
      );
    });

    it("resolves with exactly one winning outcome, at proposal and at finalize", () => {
      const exchange = new Exchange(kind);
      const market = openExclusive(exchange, 3);
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      const winnersOf = (yesIndexes: number[]) =>
        market.outcomeIds.map((outcomeId, index) => ({
          outcomeId,
          winningOptionId: yesIndexes.includes(index) ? market.yes[index]! : market.no[index]!,
        }));
      const resolve = (yesIndexes: number[]): ExchangeCommand => ({
        type: "ResolveMarket",
        marketId: market.marketId,
        proposerId: null,
        winners: winnersOf(yesIndexes),
        challengeWindowMs: null,
        challengeBond: null,
      });
      exchange.refuse(resolve([]), "INVALID_INPUT");
      exchange.refuse(resolve([0, 1]), "INVALID_INPUT");
      exchange.refuse(resolve([0, 1, 2]), "INVALID_INPUT");
      exchange.accept(resolve([1]));
      exchange.refuse(
        { type: "FinalizeMarket", marketId: market.marketId, winners: winnersOf([0, 2]) },
        "INVALID_INPUT",
      );
      exchange.accept({ type: "FinalizeMarket", marketId: market.marketId, winners: winnersOf([2]) });
    });

    for (const winner of [0, 3]) {
      it(`settles after conversions: the advance is repaid and every claim is paid (winner ${names[winner]})`, () => {
        const exchange = new Exchange(kind);
        const market = openExclusive(exchange);
        for (const user of [alice, bob, carol]) exchange.deposit(user, "100");
        buyNo(exchange, market, 0, alice, bob, "0.7", "10");
        buyNo(exchange, market, 1, alice, carol, "0.8", "10");
        exchange.accept(convert(alice, market, [0, 1], "6"));
        exchange.accept({ type: "CloseMarket", marketId: market.marketId });
        exchange.accept({
          type: "ResolveMarket",
          marketId: market.marketId,
          proposerId: null,
          winners: market.outcomeIds.map((outcomeId, index) => ({
            outcomeId,
            winningOptionId: index === winner ? market.yes[index]! : market.no[index]!,
          })),
          challengeWindowMs: null,
          challengeBond: null,
        });
        const events = exchange.accept({ type: "FinalizeMarket", marketId: market.marketId, winners: null });
        const [finished] = eventsOfType(events, "ExclusiveMarketFinished");
        assert.equal(finished?.advance, atoms("18"));
        assert.equal(finished?.dust, 0n);
        assert.equal(exchange.state.exclusiveMarkets.get(market.marketId)?.conversionAdvance, 0n);
        for (const user of [alice, bob, carol])
          exchange.run({ type: "ClaimMarket", userId: user, marketId: market.marketId });
        for (const outcomeId of market.outcomeIds)
          assert.equal(exchange.state.outcomes.get(outcomeId)!.collateral, 0n);
        // Alice paid 7 + 8 for 10 No of Ada and of Brook. Unconverted they pay 10 if Ada or Brook
        // wins, 20 otherwise; converted (6 USDT, 4 No of each, 6 Yes of Cyd and of Dale) just as much.
        const unconverted = winner <= 1 ? atoms("10") : atoms("20");
        assert.equal(balanceOf(exchange.state, alice).available, atoms("100") - atoms("15") + unconverted);
      });
    }

    it("voids after conversions: a Yes share pays 1/n, a No share (n − 1)/n, the dust goes to fees", () => {
      const exchange = new Exchange(kind);
      const market = openExclusive(exchange, 3);
      for (const user of [alice, bob]) exchange.deposit(user, "100");
      buyNo(exchange, market, 0, alice, bob, "0.6", "1");
      exchange.accept(convert(alice, market, [0], "0.0001"));
      const events = exchange.accept({ type: "VoidMarket", marketId: market.marketId });
      const [finished] = eventsOfType(events, "ExclusiveMarketFinished");
      assert.equal(finished?.voided, true);
      assert.equal(finished?.advance, atoms("0.0002"));
      for (const user of [alice, bob])
        exchange.accept({ type: "ClaimMarket", userId: user, marketId: market.marketId });
      for (const outcomeId of market.outcomeIds)
        assert.equal(exchange.state.outcomes.get(outcomeId)!.collateral, 0n);
      // Bob's 1 Yes of Ada pays 1/3, Alice's 0.9999 No of Ada 2/3 of it and her 0.0001 Yes of Brook
      // and of Cyd 1/3 each, all rounded down to the atom.
      assert.equal(balanceOf(exchange.state, bob).available, atoms("99.6") + 33_333_333n);
      assert.equal(
        balanceOf(exchange.state, alice).available,
        atoms("99.4") + (99_990_000n * 2n) / 3n + 2n * (10_000n / 3n),
      );
      const fees = exchange.state.totals.feeIncome;
      assert.equal(fees, finished!.dust);
      assert.equal(
        balanceOf(exchange.state, alice).available + balanceOf(exchange.state, bob).available + fees,
        atoms("200"),
      );
    });

    it("survives a snapshot and a replay with its conversions", () => {
      const exchange = new Exchange(kind);
      const market = openExclusive(exchange);
      for (const user of [alice, bob]) exchange.deposit(user, "100");
      buyNo(exchange, market, 2, alice, bob, "0.5", "3");
      exchange.accept(convert(alice, market, [2], "3"));
      const codec = exchange.decider;
      let replayed = codec.initialState();
      for (const event of exchange.journal) replayed = codec.evolve(replayed, event);
      assert.deepEqual(replayed.exclusiveMarkets, exchange.state.exclusiveMarkets);
      assert.equal(replayed.exclusiveMarkets.get(market.marketId)?.retiredNoShares, atoms("3"));
    });
  });
}
