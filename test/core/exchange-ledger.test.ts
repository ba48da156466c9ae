// Fees, frozen funds, deposits, the market lifecycle, and refusals that change nothing.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  balanceOf,
  bestPrices,
  bookSnapshot,
  createMarketCommand,
  limitOrderCommand,
  marketById,
  openOrdersOfUser,
  positionsOfUser,
} from "../../src/core/exchange.js";
import { openOrdersPerUserMax } from "../../src/core/limits.js";
import { atoms, bookKinds, Exchange, eventsOfType, mintPairs } from "./exchange-harness.js";

const alice = 1;
const bob = 2;
const carol = 3;

for (const kind of bookKinds) {
  describe(`fees and frozen funds (${kind} book)`, () => {
    it("charges the maker and the taker their fee in basis points of their own notional", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({ makerFeeBps: 50, takerFeeBps: 100 });
      exchange.deposit(alice, "100");
      exchange.deposit(bob, "100");
      const [placed] = eventsOfType(
        exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.6", "10")),
        "OrderPlaced",
      );
      assert.equal(
        placed?.frozenAmount,
        atoms("6.03"),
        "a resting BUY freezes its notional plus the maker fee",
      );
      const events = exchange.accept(exchange.limit(bob, market, market.no, "BUY", "0.45", "4"));
      const [trade] = eventsOfType(events, "TradeExecuted");
      assert.equal(trade?.makerFee, atoms("0.012"), "0.5% of 4 × 0.6");
      assert.equal(trade.takerFee, atoms("0.016"), "1% of 4 × 0.4");
      assert.equal(trade.makerFrozenDelta, -atoms("2.412"));
      assert.equal(trade.makerAvailableDelta, 0n);
      assert.equal(trade.takerAvailableDelta, -atoms("1.616"));
      assert.equal(exchange.state.totals.feeIncome, atoms("0.028"));
      assert.equal(marketById(exchange.state, market.marketId)?.feeIncome, atoms("0.028"));
      const [position] = positionsOfUser(exchange.state, bob);
      assert.equal(position?.cost, atoms("1.616"), "the cost basis includes the fee");
      assert.equal(position.avgPrice, atoms("0.404"));
    });

    it("a seller's fee comes out of the proceeds, and realised PnL is proceeds less fee less cost", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({ makerFeeBps: 0, takerFeeBps: 200 });
      for (const user of [alice, bob, carol]) exchange.deposit(user, "100");
      mintPairs(exchange, market, alice, bob, "10");
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.7", "5"));
      const [trade] = eventsOfType(
        exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.7", "5")),
        "TradeExecuted",
      );
      assert.equal(trade?.takerAvailableDelta, atoms("3.43"), "5 × 0.7 less 2%");
      const position = positionsOfUser(exchange.state, alice).find((p) => p.optionId === market.yes);
      assert.equal(position?.shares, atoms("5"));
      assert.equal(position.cost, atoms("2.5"));
      assert.equal(position.realizedPnl, atoms("0.93"), "3.5 − 0.07 − 2.5");
    });

    it("rounds every fee down to the atom", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({
        tickSize: atoms("0.001"),
        minOrderSize: atoms("0.0001"),
        takerFeeBps: 100,
      });
      exchange.deposit(alice, "1");
      exchange.deposit(bob, "1");
      exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.985", "0.0001"));
      const [trade] = eventsOfType(
        exchange.accept(exchange.limit(bob, market, market.no, "BUY", "0.015", "0.0001")),
        "TradeExecuted",
      );
      assert.equal(trade?.takerNotional, 150n);
      assert.equal(trade.takerFee, 1n, "1% of 150 atoms is 1.5, charged as 1");
    });

    it("a BUY filled in pieces gets back the fee-rounding difference and keeps nothing frozen", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({
        tickSize: atoms("0.001"),
        minOrderSize: atoms("0.0001"),
        makerFeeBps: 100,
      });
      exchange.deposit(alice, "1");
      exchange.deposit(bob, "1");
      exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.015", "0.0003"));
      assert.equal(balanceOf(exchange.state, alice).frozen, 454n, "450 atoms + 1% of 450 rounded down");
      const fills = [1, 2, 3].map(
        () =>
          eventsOfType(
            exchange.accept(exchange.limit(bob, market, market.no, "BUY", "0.985", "0.0001")),
            "TradeExecuted",
          )[0]!,
      );
      assert.deepEqual(
        fills.map((fill) => [fill.makerFee, fill.makerFrozenDelta, fill.makerAvailableDelta]),
        [
          [1n, -151n, 0n],
          [1n, -152n, 1n],
          [1n, -151n, 0n],
        ],
      );
      assert.deepEqual(balanceOf(exchange.state, alice), {
        available: 100_000_000n - 453n,
        frozen: 0n,
        total: 100_000_000n - 453n,
      });
    });

    it("a MARKET BUY's amount covers its taker fee too: it never spends more than the amount", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({ takerFeeBps: 100 });
      for (const user of [alice, bob, carol]) exchange.deposit(user, "100");
      mintPairs(exchange, market, alice, bob, "50");
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.5", "50"));
      const [placed] = eventsOfType(
        exchange.accept(exchange.marketBuy(carol, market, market.yes, "10.1")),
        "OrderPlaced",
      );
      assert.equal(placed?.status, "FILLED");
      assert.equal(placed.filledShares, atoms("20"));
      assert.equal(placed.filledAmount, atoms("10"));
      assert.equal(placed.feePaid, atoms("0.1"));
      assert.equal(balanceOf(exchange.state, carol).available, atoms("89.9"));
    });

    it("a resting BUY that filled in part and is then cancelled gets all the rest of its reserve back", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({ makerFeeBps: 30 });
      for (const user of [alice, bob]) exchange.deposit(user, "100");
      const [placed] = eventsOfType(
        exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.37", "7")),
        "OrderPlaced",
      );
      exchange.accept(exchange.limit(bob, market, market.no, "BUY", "0.63", "3"));
      const [cancelled] = exchange.accept({ type: "CancelOrder", userId: alice, orderId: placed!.orderId });
      assert.ok(cancelled?.type === "OrderCancelled");
      assert.equal(cancelled.filledShares, atoms("3"));
      assert.equal(cancelled.remainingShares, atoms("4"));
      assert.deepEqual(balanceOf(exchange.state, alice), {
        available: atoms("100") - atoms("1.11") - atoms("0.00333"),
        frozen: 0n,
        total: atoms("100") - atoms("1.11") - atoms("0.00333"),
      });
    });

    it("refuses a BUY that its available balance cannot cover at its limit, fee included", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({ takerFeeBps: 100 });
      exchange.deposit(alice, "5");
      exchange.refuse(exchange.limit(alice, market, market.yes, "BUY", "0.5", "10"), "INSUFFICIENT_BALANCE");
      exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.5", "9.9"));
      exchange.refuse(exchange.limit(alice, market, market.yes, "BUY", "0.5", "1"), "INSUFFICIENT_BALANCE");
      exchange.refuse(exchange.marketBuy(alice, market, market.yes, "1"), "INSUFFICIENT_BALANCE");
      exchange.refuse(exchange.limit(carol, market, market.yes, "BUY", "0.5", "1"), "INSUFFICIENT_BALANCE");
    });
  });

  describe(`market lifecycle and deposits (${kind} book)`, () => {
    it("a draft market has no book and refuses orders; opening it initializes the book", () => {
      const exchange = new Exchange(kind);
      const [created] = exchange.accept(createMarketCommand({ title: "Draft" }));
      assert.ok(created?.type === "MarketCreated");
      const outcome = created.outcomes[0]!;
      const address = { marketId: created.marketId, outcomeId: outcome.outcomeId };
      assert.equal(marketById(exchange.state, created.marketId)?.status, "draft");
      assert.deepEqual(bookSnapshot(exchange.state, address), {
        ok: false,
        rejection: { code: "BOOK_NOT_INITIALIZED" },
      });
      assert.deepEqual(bestPrices(exchange.state, address), {
        ok: false,
        rejection: { code: "BOOK_NOT_INITIALIZED" },
      });
      exchange.deposit(alice, "10");
      const order = limitOrderCommand({
        ...address,
        userId: alice,
        optionId: outcome.options[0]!.optionId,
        side: "BUY",
        limitPrice: atoms("0.5"),
        shares: atoms("1"),
      });
      exchange.refuse(order, "MARKET_NOT_OPEN");
      exchange.accept({ type: "OpenMarket", marketId: created.marketId });
      assert.deepEqual(bookSnapshot(exchange.state, address), {
        ok: true,
        value: {
          ...address,
          optionId: outcome.options[0]!.optionId,
          assetId: outcome.options[0]!.assetId,
          tickSize: atoms("0.01"),
          minOrderSize: atoms("0.01"),
          bids: [],
          asks: [],
        },
      });
      exchange.accept(order);
      exchange.refuse({ type: "OpenMarket", marketId: created.marketId }, "MARKET_STATUS_CONFLICT");
    });

    it("creates markets with the documented defaults and binary Yes/No options with long asset ids", () => {
      const exchange = new Exchange(kind);
      const [created] = exchange.accept(
        createMarketCommand({
          title: "Defaults",
          outcomes: [
            { name: "A", options: null },
            { name: "B", options: ["Up", "Down"] },
          ],
        }),
      );
      assert.ok(created?.type === "MarketCreated");
      assert.equal(created.tickSize, atoms("0.01"));
      assert.equal(created.minOrderSize, atoms("0.01"));
      assert.equal(created.marketOrderPriceProtection, atoms("0.1"));
      assert.equal(created.limitOrderPriceProtection, atoms("0.5"));
      assert.equal(created.makerFeeBps, 0);
      assert.deepEqual(
        created.outcomes.map((outcome) =>
          outcome.options.map((option) => [option.optionIndex, option.title]),
        ),
        [
          [
            [0, "Yes"],
            [1, "No"],
          ],
          [
            [0, "Up"],
            [1, "Down"],
          ],
        ],
      );
      const assetIds = created.outcomes.flatMap((outcome) => outcome.options.map((option) => option.assetId));
      assert.equal(new Set(assetIds).size, 4);
      for (const assetId of assetIds) assert.match(assetId, /^[1-9]\d{31}$/);
    });

    it("refuses bad market definitions", () => {
      const exchange = new Exchange(kind);
      exchange.refuse(createMarketCommand({ title: "x", tickSize: atoms("0.05") }), "INVALID_INPUT");
      exchange.refuse(createMarketCommand({ title: "x", minOrderSize: atoms("0.00001") }), "INVALID_INPUT");
      exchange.refuse(createMarketCommand({ title: "x", takerFeeBps: 1_001 }), "INVALID_INPUT");
      exchange.refuse(
        createMarketCommand({ title: "x", outcomes: [{ name: "A", options: ["Yes", "No", "Maybe"] }] }),
        "INVALID_INPUT",
      );
      exchange.refuse(createMarketCommand({ title: "x", outcomes: [] }), "INVALID_INPUT");
      exchange.refuse(createMarketCommand({ title: " " }), "INVALID_INPUT");
      exchange.refuse(
        createMarketCommand({ title: "x", modelType: "AMM", pool: { liquidity: atoms("99.99999999") } }),
        "INVALID_INPUT",
      );
      exchange.refuse({ type: "OpenMarket", marketId: 42 }, "MARKET_NOT_FOUND");
    });

    it("closing a market cancels every resting order, returns their funds and shares, and stops trading", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      for (const user of [alice, bob, carol]) exchange.deposit(user, "100");
      mintPairs(exchange, market, alice, bob, "10");
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.3", "10"));
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.8", "10"));
      const events = exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      assert.deepEqual(
        events.map((event) =>
          event.type === "OrderCancelled" ? `${event.type}:${event.reason}` : event.type,
        ),
        ["OrderCancelled:MARKET_CLOSED", "OrderCancelled:MARKET_CLOSED", "MarketClosed"],
      );
      assert.equal(balanceOf(exchange.state, carol).frozen, 0n);
      assert.equal(openOrdersOfUser(exchange.state, alice).length, 0);
      exchange.refuse(exchange.limit(carol, market, market.yes, "BUY", "0.3", "1"), "MARKET_NOT_OPEN");
      exchange.refuse({ type: "CloseMarket", marketId: market.marketId }, "MARKET_STATUS_CONFLICT");
      assert.equal(marketById(exchange.state, market.marketId)?.status, "closed");
    });

    it("credits a deposit once per transaction hash", () => {
      const exchange = new Exchange(kind);
      exchange.accept({ type: "Deposit", userId: alice, amount: atoms("12.5"), txHash: "0xabc" });
      exchange.refuse(
        { type: "Deposit", userId: alice, amount: atoms("12.5"), txHash: "0xabc" },
        "DEPOSIT_DUPLICATE",
      );
      exchange.refuse({ type: "Deposit", userId: bob, amount: 0n, txHash: "0xdef" }, "INVALID_INPUT");
      assert.deepEqual(balanceOf(exchange.state, alice), {
        available: atoms("12.5"),
        frozen: 0n,
        total: atoms("12.5"),
      });
    });
  });

  describe(`refused orders change nothing (${kind} book)`, () => {
    const exchange = new Exchange(kind);
    const market = exchange.openMarket();
    const other = exchange.openMarket();
    exchange.deposit(alice, "10");
    exchange.deposit(bob, "10");
    mintPairs(exchange, market, alice, bob, "1");
    const order = (fields: Partial<Parameters<typeof limitOrderCommand>[0]>) =>
      limitOrderCommand({
        userId: alice,
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market.yes,
        side: "BUY",
        limitPrice: atoms("0.5"),
        shares: atoms("1"),
        ...fields,
      });
    const cases: [string, Parameters<typeof order>[0], Parameters<Exchange["refuse"]>[1]][] = [
      ["an unknown market", { marketId: 99 }, "MARKET_NOT_FOUND"],
      ["an outcome of another market", { outcomeId: other.outcomeId }, "OUTCOME_NOT_FOUND"],
      ["an option of another outcome", { optionId: other.yes }, "OPTION_NOT_FOUND"],
      ["a price of 0", { limitPrice: 0n }, "PRICE_OUT_OF_RANGE"],
      ["a price of 1", { limitPrice: atoms("1") }, "PRICE_OUT_OF_RANGE"],
      ["a price off the tick", { limitPrice: atoms("0.505") }, "PRICE_NOT_ON_TICK"],
      ["fewer shares than the minimum", { shares: atoms("0.005") }, "SIZE_TOO_SMALL"],
      ["shares finer than 0.0001", { shares: atoms("1.00001") }, "SHARES_NOT_ON_STEP"],
      ["more shares than the maximum", { shares: atoms("1000000.0001") }, "SIZE_TOO_LARGE"],
      ["more than the balance", { shares: atoms("100") }, "INSUFFICIENT_BALANCE"],
      ["selling shares not held", { side: "SELL", optionId: market.no }, "INSUFFICIENT_SHARES"],
      ["a LIMIT order without a price", { limitPrice: null as unknown as bigint }, "INVALID_INPUT"],
      ["an unknown time in force", { timeInForce: "DAY" as "GTC" }, "INVALID_INPUT"],
      ["an expiry on a GTC order", { expiresAtMs: exchange.nowMs + 10 }, "INVALID_INPUT"],
      ["a clientOrderId that is too long", { clientOrderId: "x".repeat(65) }, "INVALID_INPUT"],
    ];
    for (const [what, fields, code] of cases) {
      it(`${what}: ${code}`, () => exchange.refuse(order(fields), code));
    }

    it(`more than ${openOrdersPerUserMax} open orders: OPEN_ORDERS_LIMIT`, () => {
      const busy = new Exchange(kind);
      const busyMarket = busy.openMarket();
      busy.deposit(carol, "1000");
      const decider = busy.decider;
      for (let index = 0; index < openOrdersPerUserMax; index++) {
        const decision = decider.decide(
          busy.state,
          busy.limit(carol, busyMarket, busyMarket.yes, "BUY", "0.01", "1"),
          busy.context(),
        );
        assert.ok(decision.ok);
        for (const event of decision.events) decider.evolve(busy.state, event);
      }
      busy.refuse(busy.limit(carol, busyMarket, busyMarket.yes, "BUY", "0.01", "1"), "OPEN_ORDERS_LIMIT");
    });
  });
}
