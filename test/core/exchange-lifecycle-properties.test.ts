// Property: a whole market life — random trading, close, resolve, maybe a challenge, then
// finalize (with or without corrected winners), the scheduler's settlement, or void at a random
// point — then random claims, repeated ones included. The fast and the reference book run in
// lockstep; after every command both hold the same state and every invariant holds (money
// conserved with the collateral, every frozen atom backed, collateral = unclaimed payouts).
// At the end the claims paid exactly the collateral the market held when it finished, no
// position was paid twice, and once everything is claimed no collateral is left.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  createExchangeDecider,
  type ExchangeCommand,
  type ExchangeEvent,
  exchangeStateCodec,
  stateHash,
} from "../../src/core/exchange.js";
import { type BinaryMarket, Exchange } from "./exchange-harness.js";

const runs = Number(process.env.PREDEX_PROPERTY_RUNS ?? 100);
const users = [1, 2, 3, 4];
const windowMs = 60_000;

type Trade = { user: number; option: 0 | 1; side: "BUY" | "SELL"; tick: number; lots: number };
type Ending =
  | { kind: "finalize"; challenger: number | null; correct: 0 | 1 | null }
  | { kind: "window" }
  | { kind: "void"; at: "open" | "closed" | "resolving" | "challenged" };
type Claim = { user: number; byMarket: boolean; option: 0 | 1 };

const trade: fc.Arbitrary<Trade> = fc.record({
  user: fc.constantFrom(...users),
  option: fc.constantFrom<0 | 1>(0, 1),
  side: fc.constantFrom<"BUY" | "SELL">("BUY", "BUY", "SELL"),
  tick: fc.integer({ min: 30, max: 70 }),
  lots: fc.integer({ min: 100, max: 50_000 }),
});
const ending: fc.Arbitrary<Ending> = fc.oneof(
  fc.record({
    kind: fc.constant("finalize" as const),
    challenger: fc.option(fc.constantFrom(...users)),
    correct: fc.option(fc.constantFrom<0 | 1>(0, 1)),
  }),
  fc.record({ kind: fc.constant("window" as const) }),
  fc.record({
    kind: fc.constant("void" as const),
    at: fc.constantFrom<"open" | "closed" | "resolving" | "challenged">(
      "open",
      "closed",
      "resolving",
      "challenged",
    ),
  }),
);
const claim: fc.Arbitrary<Claim> = fc.record({
  user: fc.constantFrom(...users),
  byMarket: fc.boolean(),
  option: fc.constantFrom<0 | 1>(0, 1),
});

/** Runs one command on both books; they must decide alike and hold the same state. */
function both(fast: Exchange, reference: Exchange, command: ExchangeCommand): ExchangeEvent[] | null {
  const a = fast.run(command);
  const b = reference.run(command);
  assert.deepEqual(a, b, "both books decide alike");
  assert.equal(stateHash(fast.state), stateHash(reference.state), "both books hold the same state");
  return a.ok ? a.events : null;
}

function life(trades: readonly Trade[], winner: 0 | 1, end: Ending, claims: readonly Claim[]): void {
  const fast = new Exchange("fast");
  const reference = new Exchange("reference");
  const run = (command: ExchangeCommand) => both(fast, reference, command);
  const market: BinaryMarket = { marketId: 1, outcomeId: 1, yes: 1, no: 2 };
  for (const exchange of [fast, reference]) {
    exchange.openMarket({ makerFeeBps: 10, takerFeeBps: 30 });
    for (const userId of users) exchange.deposit(userId, "1000");
  }
  for (const t of trades) {
    run(
      fast.limit(
        t.user,
        market,
        t.option === 0 ? market.yes : market.no,
        t.side,
        (t.tick / 100).toFixed(2),
        (t.lots / 10_000).toFixed(4),
      ),
    );
  }
  const optionOf = (index: 0 | 1) => (index === 0 ? market.yes : market.no);
  const resolve: ExchangeCommand = {
    type: "ResolveMarket",
    marketId: market.marketId,
    proposerId: null,
    winners: [{ outcomeId: market.outcomeId, winningOptionId: optionOf(winner) }],
    challengeWindowMs: windowMs,
    challengeBond: 5_00_000_000n,
  };
  const voidMarket: ExchangeCommand = { type: "VoidMarket", marketId: market.marketId };
  const challenge = (userId: number): ExchangeCommand => ({
    type: "ChallengeResolution",
    marketId: market.marketId,
    userId,
    reason: "no",
  });

  if (end.kind === "void" && end.at === "open") assert.ok(run(voidMarket));
  else {
    assert.ok(run({ type: "CloseMarket", marketId: market.marketId }));
    if (end.kind === "void" && end.at === "closed") assert.ok(run(voidMarket));
    else {
      assert.ok(run(resolve));
      if (end.kind === "void") {
        if (end.at === "challenged") assert.ok(run(challenge(1)));
        assert.ok(run(voidMarket));
      } else if (end.kind === "window") {
        fast.nowMs += windowMs;
        reference.nowMs += windowMs;
        assert.ok(run({ type: "SettleMarket", marketId: market.marketId }));
      } else {
        if (end.challenger !== null) assert.ok(run(challenge(end.challenger)));
        const winners =
          end.correct === null
            ? null
            : [{ outcomeId: market.outcomeId, winningOptionId: optionOf(end.correct) }];
        assert.ok(run({ type: "FinalizeMarket", marketId: market.marketId, winners }));
      }
    }
  }

  const collateralAtEnd = fast.state.outcomes.get(market.outcomeId)!.collateral;
  let paid = 0n;
  const paidPositions = new Set<number>();
  const claimAll = (requests: readonly Claim[]) => {
    for (const request of requests) {
      const positionId =
        fast.state.accounts.get(request.user)?.positions.get(optionOf(request.option))?.positionId ?? 999;
      const events = run(
        request.byMarket
          ? { type: "ClaimMarket", userId: request.user, marketId: market.marketId }
          : { type: "ClaimPosition", userId: request.user, positionId },
      );
      for (const event of events ?? []) {
        assert.ok(event.type === "PositionClaimed");
        assert.ok(!paidPositions.has(event.positionId), "no position is paid twice");
        paidPositions.add(event.positionId);
        paid += event.amount;
      }
    }
  };
  claimAll(claims);
  // Then everyone claims whatever is left, by market.
  claimAll(users.map((user) => ({ user, byMarket: true, option: 0 })));
  assert.equal(paid, collateralAtEnd, "the claims paid exactly the collateral the market held");
  assert.equal(fast.state.outcomes.get(market.outcomeId)!.collateral, 0n);

  // Money: nothing created or lost; what users hold plus fees is what they deposited.
  let balances = 0n;
  for (const account of fast.state.accounts.values()) {
    assert.equal(account.frozen, 0n, "nothing stays frozen once the market is over");
    balances += account.available;
  }
  assert.equal(balances + fast.state.totals.feeIncome, 4_000n * 100_000_000n);

  // The lifecycle's state survives a snapshot, and replaying the journal rebuilds it exactly.
  const encoded = exchangeStateCodec.encode(fast.state);
  assert.equal(exchangeStateCodec.encode(exchangeStateCodec.decode(encoded)), encoded);
  const decider = createExchangeDecider("fast");
  let replayed = decider.initialState();
  for (const event of fast.journal) replayed = decider.evolve(replayed, event);
  assert.equal(exchangeStateCodec.encode(replayed), encoded);
}

describe("a whole market life, by property", () => {
  it("conserves money, pays exactly the collateral, and never pays a position twice", () => {
    fc.assert(
      fc.property(
        fc.array(trade, { maxLength: 60 }),
        fc.constantFrom<0 | 1>(0, 1),
        ending,
        fc.array(claim, { maxLength: 12 }),
        (trades, winner, end, claims) => life(trades, winner, end, claims),
      ),
      { numRuns: runs },
    );
  });
});
