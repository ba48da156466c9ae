// The end of a market's life in the core: resolve, challenge, finalize, settle when the window
// ends, void; which status allows which step; what the bond does.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  balanceOf,
  type ChallengeResolutionCommand,
  createMarketCommand,
  defaultChallengeBondAtoms,
  defaultChallengeWindowMs,
  dueScheduledCommands,
  type ExchangeCommand,
  marketById,
  openOrdersOfUser,
  type ResolveMarketCommand,
} from "../../src/core/exchange.js";
import {
  atoms,
  type BinaryMarket,
  bookKinds,
  Exchange,
  eventsOfType,
  mintPairs,
} from "./exchange-harness.js";

const alice = 1;
const bob = 2;
const carol = 3;
const creator = 9;

function resolve(
  market: BinaryMarket,
  winner: number,
  extra: Partial<ResolveMarketCommand> = {},
): ResolveMarketCommand {
  return {
    type: "ResolveMarket",
    marketId: market.marketId,
    proposerId: null,
    winners: [{ outcomeId: market.outcomeId, winningOptionId: winner }],
    challengeWindowMs: null,
    challengeBond: null,
    ...extra,
  };
}

const challenge = (market: BinaryMarket, userId: number): ChallengeResolutionCommand => ({
  type: "ChallengeResolution",
  marketId: market.marketId,
  userId,
  reason: "The source says otherwise",
});

const finalize = (market: BinaryMarket, winner: number | null = null): ExchangeCommand => ({
  type: "FinalizeMarket",
  marketId: market.marketId,
  winners: winner === null ? null : [{ outcomeId: market.outcomeId, winningOptionId: winner }],
});

for (const kind of bookKinds) {
  describe(`market lifecycle (${kind} book)`, () => {
    /** Given an open market where Alice holds 10 Yes and Bob 10 No (bought at 0.5), and Carol has 100 USDT. */
    function given(fields: Parameters<Exchange["openMarket"]>[0] = {}) {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket(fields);
      exchange.deposit(alice, "100");
      exchange.deposit(bob, "100");
      exchange.deposit(carol, "100");
      mintPairs(exchange, market, alice, bob, "10");
      return { exchange, market };
    }

    it("moves closed → resolving → settled, and starts a 24 h window by default", () => {
      const { exchange, market } = given();
      exchange.refuse(resolve(market, market.yes), "MARKET_STATUS_CONFLICT");
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      const [resolved] = exchange.accept(resolve(market, market.yes));
      assert.ok(resolved?.type === "MarketResolved");
      assert.equal(resolved.windowEndsAtMs, exchange.nowMs + defaultChallengeWindowMs);
      assert.equal(resolved.challengeBond, defaultChallengeBondAtoms);
      assert.equal(marketById(exchange.state, market.marketId)?.status, "resolving");
      exchange.refuse(resolve(market, market.no), "MARKET_STATUS_CONFLICT");
      exchange.accept(finalize(market));
      const view = marketById(exchange.state, market.marketId);
      assert.equal(view?.status, "settled");
      assert.deepEqual(view?.resolution?.finalWinners, [
        { outcomeId: market.outcomeId, optionId: market.yes },
      ]);
      for (const command of [
        finalize(market),
        resolve(market, market.yes),
        { type: "VoidMarket", marketId: market.marketId } as const,
        { type: "CloseMarket", marketId: market.marketId } as const,
        { type: "OpenMarket", marketId: market.marketId } as const,
      ]) {
        exchange.refuse(command, "MARKET_STATUS_CONFLICT");
      }
    });

    it("only the operator or the market's creator may propose the result", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({ creatorId: creator });
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.refuse(resolve(market, market.yes, { proposerId: alice }), "NOT_MARKET_CREATOR");
      const [resolved] = exchange.accept(resolve(market, market.yes, { proposerId: creator }));
      assert.ok(resolved?.type === "MarketResolved" && resolved.proposerId === creator);
      const platformMarket = exchange.openMarket();
      exchange.accept({ type: "CloseMarket", marketId: platformMarket.marketId });
      exchange.refuse(
        resolve(platformMarket, platformMarket.yes, { proposerId: creator }),
        "NOT_MARKET_CREATOR",
      );
    });

    it("refuses winners that do not name every outcome once with one of its own options", () => {
      const { exchange, market } = given();
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.refuse(resolve(market, market.yes, { winners: [] }), "INVALID_INPUT");
      exchange.refuse(
        resolve(market, market.yes, {
          winners: [
            { outcomeId: market.outcomeId, winningOptionId: market.yes },
            { outcomeId: market.outcomeId, winningOptionId: market.no },
          ],
        }),
        "INVALID_INPUT",
      );
      exchange.refuse(
        resolve(market, market.yes, { winners: [{ outcomeId: 999, winningOptionId: market.yes }] }),
        "OUTCOME_NOT_FOUND",
      );
      exchange.refuse(resolve(market, 999), "OPTION_NOT_FOUND");
      exchange.refuse(resolve(market, market.yes, { challengeWindowMs: 10 }), "INVALID_INPUT");
      exchange.refuse(resolve(market, market.yes, { challengeBond: 0n }), "INVALID_INPUT");
      exchange.refuse({ ...resolve(market, market.yes), marketId: 999 }, "MARKET_NOT_FOUND");
    });

    it("the scheduler settles an unchallenged resolution when its window ends, not before", () => {
      const { exchange, market } = given();
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.accept(resolve(market, market.no, { challengeWindowMs: 60_000 }));
      const settle = { type: "SettleMarket", marketId: market.marketId } as const;
      assert.deepEqual(dueScheduledCommands(exchange.state, exchange.nowMs + 59_999, 10), []);
      exchange.refuse(settle, "MARKET_STATUS_CONFLICT");
      exchange.nowMs += 60_000;
      assert.deepEqual(dueScheduledCommands(exchange.state, exchange.nowMs, 10), [settle]);
      const [settled] = exchange.accept(settle);
      assert.ok(settled?.type === "MarketSettled");
      assert.deepEqual(
        [settled.by, settled.winners],
        ["WINDOW_ENDED", [{ outcomeId: market.outcomeId, optionId: market.no }]],
      );
      assert.deepEqual(dueScheduledCommands(exchange.state, exchange.nowMs, 10), []);
    });

    it("finalize settles at once, ending the window early", () => {
      const { exchange, market } = given();
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.accept(resolve(market, market.yes));
      const [settled] = exchange.accept(finalize(market));
      assert.ok(settled?.type === "MarketSettled" && settled.by === "OPERATOR");
      exchange.refuse(challenge(market, carol), "MARKET_STATUS_CONFLICT");
    });

    it("a challenge freezes the bond; the scheduler then leaves the market to the operator", () => {
      const { exchange, market } = given();
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.accept(resolve(market, market.yes, { challengeWindowMs: 60_000, challengeBond: atoms("25") }));
      exchange.accept(challenge(market, carol));
      assert.deepEqual(balanceOf(exchange.state, carol), {
        available: atoms("75"),
        frozen: atoms("25"),
        total: atoms("100"),
      });
      assert.equal(marketById(exchange.state, market.marketId)?.resolution?.challenged, true);
      exchange.refuse(challenge(market, alice), "MARKET_STATUS_CONFLICT");
      exchange.nowMs += 120_000;
      assert.deepEqual(dueScheduledCommands(exchange.state, exchange.nowMs, 10), []);
      exchange.refuse({ type: "SettleMarket", marketId: market.marketId }, "MARKET_STATUS_CONFLICT");
    });

    it("refuses a challenge without the bond, after the window, or outside resolving", () => {
      const { exchange, market } = given();
      exchange.refuse(challenge(market, carol), "MARKET_STATUS_CONFLICT");
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.accept(
        resolve(market, market.yes, { challengeWindowMs: 60_000, challengeBond: atoms("101") }),
      );
      exchange.refuse(challenge(market, carol), "INSUFFICIENT_BALANCE");
      exchange.refuse(challenge(market, 77), "INSUFFICIENT_BALANCE");
      exchange.refuse({ ...challenge(market, carol), reason: "x".repeat(1_001) }, "INVALID_INPUT");
      exchange.deposit(carol, "1");
      exchange.nowMs += 60_000;
      exchange.refuse(challenge(market, carol), "MARKET_STATUS_CONFLICT");
    });

    it("a right challenge (the operator corrects the winners) gets its bond back", () => {
      const { exchange, market } = given();
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.accept(resolve(market, market.yes, { challengeBond: atoms("25") }));
      exchange.accept(challenge(market, carol));
      const events = exchange.accept(finalize(market, market.no));
      assert.deepEqual(
        events.map((event) => event.type),
        ["ChallengeBondReturned", "MarketSettled"],
      );
      assert.deepEqual(balanceOf(exchange.state, carol), {
        available: atoms("100"),
        frozen: 0n,
        total: atoms("100"),
      });
      assert.deepEqual(marketById(exchange.state, market.marketId)?.resolution?.finalWinners, [
        { outcomeId: market.outcomeId, optionId: market.no },
      ]);
    });

    it("a wrong challenge (the proposal stands) forfeits its bond to the market's fee income", () => {
      const { exchange, market } = given();
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      exchange.accept(resolve(market, market.yes, { challengeBond: atoms("25") }));
      exchange.accept(challenge(market, carol));
      const events = exchange.accept(finalize(market, market.yes));
      assert.deepEqual(
        events.map((event) => event.type),
        ["ChallengeBondForfeited", "MarketSettled"],
      );
      assert.deepEqual(balanceOf(exchange.state, carol), {
        available: atoms("75"),
        frozen: 0n,
        total: atoms("75"),
      });
      assert.equal(marketById(exchange.state, market.marketId)?.feeIncome, atoms("25"));
      assert.equal(exchange.state.totals.feeIncome, atoms("25"));
    });

    it("void cancels resting orders, returns a held bond, and is refused once settled or void", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.7", "4"));
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.3", "10"));
      const events = exchange.accept({ type: "VoidMarket", marketId: market.marketId });
      assert.deepEqual(
        events.map((event) => event.type),
        ["OrderCancelled", "OrderCancelled", "MarketVoided"],
      );
      assert.ok(eventsOfType(events, "OrderCancelled").every((event) => event.reason === "MARKET_VOID"));
      assert.deepEqual(openOrdersOfUser(exchange.state, carol), []);
      assert.deepEqual(balanceOf(exchange.state, carol), {
        available: atoms("100"),
        frozen: 0n,
        total: atoms("100"),
      });
      exchange.refuse({ type: "VoidMarket", marketId: market.marketId }, "MARKET_STATUS_CONFLICT");
      exchange.refuse(exchange.limit(carol, market, market.yes, "BUY", "0.3", "1"), "MARKET_NOT_OPEN");

      const challenged = given();
      challenged.exchange.accept({ type: "CloseMarket", marketId: challenged.market.marketId });
      challenged.exchange.accept(resolve(challenged.market, challenged.market.yes));
      challenged.exchange.accept(challenge(challenged.market, carol));
      const voided = challenged.exchange.accept({ type: "VoidMarket", marketId: challenged.market.marketId });
      assert.deepEqual(
        voided.map((event) => event.type),
        ["ChallengeBondReturned", "MarketVoided"],
      );
      assert.equal(balanceOf(challenged.exchange.state, carol).available, atoms("100"));
    });

    it("a draft market can be voided, and has no book afterwards", () => {
      const exchange = new Exchange(kind);
      const [created] = exchange.accept(createMarketCommand({ title: "Draft" }));
      assert.ok(created?.type === "MarketCreated");
      exchange.accept({ type: "VoidMarket", marketId: created.marketId });
      exchange.refuse({ type: "OpenMarket", marketId: created.marketId }, "MARKET_STATUS_CONFLICT");
      assert.equal(marketById(exchange.state, created.marketId)?.status, "void");
    });
  });
}
