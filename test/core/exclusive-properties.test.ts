// Properties of exclusive markets (DESIGN §10, issue 30 point 3), over random lives of a market of
// two to four outcomes: random trading on every book, random conversions (some refused: too many
// shares, every outcome listed), cancels, then settlement with a random winner, by the operator or
// the scheduler, or a void at a random point, then random claims and everyone's. The fast and the
// reference book run in lockstep and must decide alike and hold the same state; after every command
// every invariant holds (the harness: money conserved to the atom with the conversions' advance,
// Yes outstanding = No outstanding + retired per outcome, collateral = unclaimed payouts once
// finished). Every accepted conversion keeps the converting user's payout under every possible
// winner exactly (and a void's, which averages them). At the end the claims paid exactly the
// collateral the market held, nothing is left, and users' money plus fees is what they deposited.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  createExchangeDecider,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeStateCodec,
  stateHash,
} from "../../src/core/exchange.js";
import { Exchange } from "./exchange-harness.js";
import { openExclusive } from "./exclusive-harness.js";

const runs = Number(process.env.PREDEX_PROPERTY_RUNS ?? 100);
const users = [1, 2, 3, 4];
const windowMs = 60_000;
const lot = 10_000n;

type Step =
  | {
      kind: "trade";
      user: number;
      outcome: number;
      option: 0 | 1;
      side: "BUY" | "SELL";
      tick: number;
      lots: number;
    }
  | { kind: "convert"; user: number; listed: number; percent: number }
  | { kind: "cancel"; user: number; orderId: number };
type Ending =
  | { kind: "finalize"; winner: number; challenged: boolean }
  | { kind: "window"; winner: number }
  | { kind: "void"; at: "open" | "closed" | "resolving" };
type Claim = { user: number; byMarket: boolean; outcome: number; option: 0 | 1 };

const user = fc.constantFrom(...users);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("trade" as const),
      user,
      outcome: fc.nat(3),
      option: fc.constantFrom<0 | 1>(0, 1, 1),
      side: fc.constantFrom<"BUY" | "SELL">("BUY", "BUY", "SELL"),
      tick: fc.integer({ min: 15, max: 85 }),
      lots: fc.integer({ min: 100, max: 40_000 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("convert" as const),
      user,
      // A bit mask of the outcomes listed; every outcome listed is refused.
      listed: fc.integer({ min: 1, max: 15 }),
      percent: fc.integer({ min: 1, max: 120 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("cancel" as const),
      user,
      orderId: fc.integer({ min: 1, max: 60 }),
    }),
  },
);
const ending: fc.Arbitrary<Ending> = fc.oneof(
  fc.record({ kind: fc.constant("finalize" as const), winner: fc.nat(3), challenged: fc.boolean() }),
  fc.record({ kind: fc.constant("window" as const), winner: fc.nat(3) }),
  fc.record({
    kind: fc.constant("void" as const),
    at: fc.constantFrom<"open" | "closed" | "resolving">("open", "closed", "resolving"),
  }),
);
const claim: fc.Arbitrary<Claim> = fc.record({
  user,
  byMarket: fc.boolean(),
  outcome: fc.nat(3),
  option: fc.constantFrom<0 | 1>(0, 1),
});

interface Market {
  marketId: number;
  outcomeIds: number[];
  yes: number[];
  no: number[];
}

/**
 * What the user ends with under each possible winner (balances plus the market's payouts), and n
 * times what a void pays them before rounding (a Yes share 1/n, a No share (n − 1)/n): exact integers.
 */
export function payoutVector(state: ExchangeState, market: Market, userId: number): bigint[] {
  const account = state.accounts.get(userId);
  const n = BigInt(market.outcomeIds.length);
  const cash = account === undefined ? 0n : account.available + account.frozen;
  const perWinner = market.outcomeIds.map(() => cash);
  let voidTimesN = cash * n;
  for (const position of account?.positions.values() ?? []) {
    if (position.marketId !== market.marketId) continue;
    const held = position.shares + position.frozenShares;
    const index = market.outcomeIds.indexOf(position.outcomeId);
    const isYes = market.yes[index] === position.optionId;
    voidTimesN += isYes ? held : held * (n - 1n);
    for (let winner = 0; winner < perWinner.length; winner += 1) {
      if (isYes === (winner === index)) perWinner[winner]! += held;
    }
  }
  return [...perWinner, voidTimesN];
}

/** Runs one command on both books; they must decide alike and hold the same state. */
function both(fast: Exchange, reference: Exchange, command: ExchangeCommand): ExchangeEvent[] | null {
  const a = fast.run(command);
  const b = reference.run(command);
  assert.deepEqual(a, b, "both books decide alike");
  assert.equal(stateHash(fast.state), stateHash(reference.state), "both books hold the same state");
  return a.ok ? a.events : null;
}

function convertCommand(
  state: ExchangeState,
  market: Market,
  step: Extract<Step, { kind: "convert" }>,
): ExchangeCommand {
  const freeNo = (index: number) =>
    state.accounts.get(step.user)?.positions.get(market.no[index]!)?.shares ?? 0n;
  const masked = market.outcomeIds.map((_id, index) => index).filter((index) => (step.listed >> index) & 1);
  // Mostly the masked outcomes the user holds free No shares of; when none, the mask as it is (refused).
  const held = masked.filter((index) => freeNo(index) > 0n);
  const listed = held.length > 0 ? held : masked.length > 0 ? masked : [0];
  const free = listed.map(freeNo);
  let fewest = free[0]!;
  for (const each of free) if (each < fewest) fewest = each;
  const shares = ((fewest * BigInt(step.percent)) / 100n / lot) * lot;
  return {
    type: "ConvertPositions",
    userId: step.user,
    marketId: market.marketId,
    outcomeIds: listed.map((index) => market.outcomeIds[index]!),
    shares: shares === 0n ? lot : shares,
  };
}

function life(
  outcomeCount: number,
  steps: readonly Step[],
  end: Ending,
  claims: readonly Claim[],
): { conversions: number } {
  const fast = new Exchange("fast");
  const reference = new Exchange("reference");
  const run = (command: ExchangeCommand) => both(fast, reference, command);
  let market: Market | undefined;
  for (const exchange of [fast, reference]) {
    market = openExclusive(exchange, outcomeCount, { makerFeeBps: 10, takerFeeBps: 30 });
    for (const userId of users) exchange.deposit(userId, "1000");
  }
  const m = market!;
  // Users 2 and 4 start with No shares of every outcome (minted with 1 and 3, who hold the Yes).
  for (let index = 0; index < outcomeCount; index += 1) {
    const where = { marketId: m.marketId, outcomeId: m.outcomeIds[index]!, yes: 0, no: 0 };
    for (const [yesUser, noUser] of [
      [1, 2],
      [3, 4],
    ] as const) {
      run(fast.limit(yesUser, where, m.yes[index]!, "BUY", "0.5", "20"));
      run(fast.limit(noUser, where, m.no[index]!, "BUY", "0.5", "20"));
    }
  }
  let conversions = 0;
  for (const s of steps) {
    if (s.kind === "trade") {
      const index = s.outcome % outcomeCount;
      const where = { marketId: m.marketId, outcomeId: m.outcomeIds[index]!, yes: 0, no: 0 };
      const optionId = s.option === 0 ? m.yes[index]! : m.no[index]!;
      run(
        fast.limit(s.user, where, optionId, s.side, (s.tick / 100).toFixed(2), (s.lots / 10_000).toFixed(4)),
      );
    } else if (s.kind === "cancel") {
      run({ type: "CancelOrder", userId: s.user, orderId: s.orderId });
    } else {
      const command = convertCommand(fast.state, m, s);
      const before = payoutVector(fast.state, m, s.user);
      const others = users.filter((each) => each !== s.user).map((each) => payoutVector(fast.state, m, each));
      if (run(command) !== null) {
        conversions += 1;
        assert.deepEqual(
          payoutVector(fast.state, m, s.user),
          before,
          "a conversion keeps the user's payouts",
        );
        assert.deepEqual(
          users.filter((each) => each !== s.user).map((each) => payoutVector(fast.state, m, each)),
          others,
          "and nobody else's",
        );
      }
    }
  }

  const winners = (winner: number) =>
    m.outcomeIds.map((outcomeId, index) => ({
      outcomeId,
      winningOptionId: index === winner % outcomeCount ? m.yes[index]! : m.no[index]!,
    }));
  const resolve = (winner: number): ExchangeCommand => ({
    type: "ResolveMarket",
    marketId: m.marketId,
    proposerId: null,
    winners: winners(winner),
    challengeWindowMs: windowMs,
    challengeBond: 5_00_000_000n,
  });
  const voidMarket: ExchangeCommand = { type: "VoidMarket", marketId: m.marketId };
  if (end.kind === "void" && end.at === "open") assert.ok(run(voidMarket));
  else {
    assert.ok(run({ type: "CloseMarket", marketId: m.marketId }));
    if (end.kind === "void") {
      if (end.at === "resolving") assert.ok(run(resolve(0)));
      assert.ok(run(voidMarket));
    } else if (end.kind === "window") {
      assert.ok(run(resolve(end.winner)));
      fast.nowMs += windowMs;
      reference.nowMs += windowMs;
      assert.ok(run({ type: "SettleMarket", marketId: m.marketId }));
    } else {
      assert.ok(run(resolve(end.winner)));
      if (end.challenged)
        assert.ok(run({ type: "ChallengeResolution", marketId: m.marketId, userId: 1, reason: "no" }));
      assert.ok(run({ type: "FinalizeMarket", marketId: m.marketId, winners: null }));
    }
  }
  assert.equal(fast.state.exclusiveMarkets.get(m.marketId)?.conversionAdvance, 0n, "the advance is repaid");

  const collateralAtEnd = m.outcomeIds.reduce((sum, id) => sum + fast.state.outcomes.get(id)!.collateral, 0n);
  let paid = 0n;
  const paidPositions = new Set<number>();
  const claimAll = (requests: readonly Claim[]) => {
    for (const request of requests) {
      const index = request.outcome % outcomeCount;
      const optionId = request.option === 0 ? m.yes[index]! : m.no[index]!;
      const positionId = fast.state.accounts.get(request.user)?.positions.get(optionId)?.positionId ?? 999;
      const events = run(
        request.byMarket
          ? { type: "ClaimMarket", userId: request.user, marketId: m.marketId }
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
  claimAll(users.map((each) => ({ user: each, byMarket: true, outcome: 0, option: 0 })));
  assert.equal(paid, collateralAtEnd, "the claims paid exactly the collateral the market held");
  for (const outcomeId of m.outcomeIds) assert.equal(fast.state.outcomes.get(outcomeId)!.collateral, 0n);

  // Money to the atom: what users hold plus the fees (dust included) is what they deposited.
  let balances = 0n;
  for (const account of fast.state.accounts.values()) {
    assert.equal(account.frozen, 0n, "nothing stays frozen once the market is over");
    balances += account.available;
  }
  assert.equal(balances + fast.state.totals.feeIncome, 4_000n * 100_000_000n);

  // The conversions survive a snapshot, and replaying the journal rebuilds the state exactly.
  const encoded = exchangeStateCodec.encode(fast.state);
  assert.equal(exchangeStateCodec.encode(exchangeStateCodec.decode(encoded)), encoded);
  const decider = createExchangeDecider("reference");
  let replayed = decider.initialState();
  for (const event of fast.journal) replayed = decider.evolve(replayed, event);
  assert.equal(exchangeStateCodec.encode(replayed), encoded);
  return { conversions };
}

describe("exclusive markets, by property", () => {
  it("conversions keep every payout, money is conserved to the atom, and both books agree", () => {
    let conversions = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }),
        fc.array(step, { maxLength: 80, size: "max" }),
        ending,
        fc.array(claim, { maxLength: 10 }),
        (outcomeCount, steps, end, claims) => {
          conversions += life(outcomeCount, steps, end, claims).conversions;
        },
      ),
      { numRuns: runs },
    );
    // The property is not vacuous: random lives do convert.
    assert.ok(conversions > runs * 3, `only ${conversions} conversions in ${runs} runs`);
  });
});
