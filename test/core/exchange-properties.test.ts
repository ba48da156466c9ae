// Property tests over random command streams. The fast and the reference book are fed the same
// stream and must decide identically and hold identical states (equal stateHash) after every
// command; the invariants (money conserved, no negative balance, no crossed book at rest, every
// frozen atom backed) hold throughout; the codec round-trips; replaying the journal rebuilds the
// identical encoding.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { encodeState } from "../../src/core/codec.js";
import type { CommandContext } from "../../src/core/decider.js";
import {
  assertInvariants,
  createExchangeDecider,
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeStateCodec,
  limitOrderCommand,
  marketOrderCommand,
  referenceExchangeStateCodec,
  stateHash,
} from "../../src/core/exchange.js";

const runs = Number(process.env.PREDEX_PROPERTY_RUNS ?? 150);
const users = [1, 2, 3, 4];

type Step =
  | { kind: "deposit"; user: number; cents: number; tx: number }
  | {
      kind: "limit";
      user: number;
      market: number;
      option: 0 | 1;
      side: "BUY" | "SELL";
      tick: number;
      lots: number;
      tif: "GTC" | "GTD" | "FOK" | "FAK";
      expiresInMs: number;
      clientOrderId: number | null;
      postOnly: boolean;
    }
  | { kind: "market"; user: number; market: number; option: 0 | 1; side: "BUY" | "SELL"; size: number }
  | { kind: "cancel"; user: number; orderId: number }
  | { kind: "cancelAll"; user: number; market: number | null; book: boolean }
  | { kind: "heartbeat"; user: number; timeoutMs: number }
  | { kind: "trip"; user: number }
  | {
      kind: "amend";
      user: number;
      owner: boolean;
      orderId: number;
      tick: number | null;
      lots: number | null;
    }
  | { kind: "expire" }
  | { kind: "advance"; ms: number }
  | { kind: "close"; market: number }
  | { kind: "withdraw"; user: number; cents: number; feeCents: number }
  | {
      kind: "withdrawal";
      action: "cancel" | "approve" | "reject" | "complete";
      user: number;
      withdrawalId: number;
    }
  // The exclusive market D (three outcomes): a LIMIT order on one of its books, and a conversion of
  // the No shares of the outcomes of a bit mask (all three, or none, is refused).
  | {
      kind: "exclusiveLimit";
      user: number;
      outcome: number;
      option: 0 | 1;
      side: "BUY" | "SELL";
      tick: number;
      lots: number;
    }
  | { kind: "convert"; user: number; listed: number; lots: number };

const user = fc.constantFrom(...users);
const option = fc.constantFrom<0 | 1>(0, 1);
const side = fc.constantFrom<"BUY" | "SELL">("BUY", "SELL");
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("deposit" as const),
      user,
      cents: fc.integer({ min: 1, max: 20_000 }),
      tx: fc.integer({ min: 0, max: 40 }),
    }),
  },
  {
    weight: 30,
    arbitrary: fc.record({
      kind: fc.constant("limit" as const),
      user,
      market: fc.constantFrom(0, 0, 0, 0, 1, 1, 2),
      option,
      side,
      tick: fc.oneof(
        { weight: 9, arbitrary: fc.integer({ min: 35, max: 65 }) },
        { weight: 1, arbitrary: fc.integer({ min: -1, max: 101 }) },
      ),
      lots: fc.oneof(
        { weight: 9, arbitrary: fc.integer({ min: 100, max: 30_000 }) },
        { weight: 1, arbitrary: fc.constantFrom(0, 1, 99, 101, 10_000_000_001) },
      ),
      tif: fc.constantFrom<"GTC" | "GTD" | "FOK" | "FAK">("GTC", "GTC", "GTD", "FOK", "FAK"),
      expiresInMs: fc.integer({ min: -10, max: 5_000 }),
      clientOrderId: fc.option(fc.integer({ min: 0, max: 5 }), { freq: 4 }),
      postOnly: fc.constantFrom(false, false, false, true),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("market" as const),
      user,
      market: fc.constantFrom(0, 1),
      option,
      side,
      size: fc.integer({ min: 1, max: 40_000 }),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("cancel" as const),
      user,
      orderId: fc.integer({ min: 0, max: 40 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("amend" as const),
      user,
      owner: fc.constantFrom(true, true, true, false),
      orderId: fc.integer({ min: 0, max: 40 }),
      tick: fc.option(fc.integer({ min: 33, max: 67 }), { freq: 2 }),
      lots: fc.option(
        fc.oneof(
          { weight: 9, arbitrary: fc.integer({ min: 100, max: 30_000 }) },
          { weight: 1, arbitrary: fc.constantFrom(0, 1, 99, 101) },
        ),
        { freq: 2 },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("cancelAll" as const),
      user,
      market: fc.option(fc.constantFrom(0, 1, 2, 3), { freq: 3 }),
      book: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("heartbeat" as const),
      user,
      timeoutMs: fc.constantFrom(0, 5_000, 5_000, 8_000, 4_000),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("trip" as const), user }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("expire" as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 3_000 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("withdraw" as const),
      user,
      cents: fc.integer({ min: 0, max: 6_000 }),
      feeCents: fc.integer({ min: 0, max: 100 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("withdrawal" as const),
      action: fc.constantFrom<"cancel" | "approve" | "reject" | "complete">(
        "cancel",
        "approve",
        "reject",
        "complete",
      ),
      user,
      withdrawalId: fc.integer({ min: 0, max: 8 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("close" as const),
      market: fc.constantFrom(0, 1, 2, 2, 2, 2, 2, 2, 3),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("exclusiveLimit" as const),
      user,
      outcome: fc.nat(2),
      option,
      side,
      tick: fc.integer({ min: 20, max: 80 }),
      lots: fc.integer({ min: 100, max: 30_000 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("convert" as const),
      user,
      listed: fc.integer({ min: 0, max: 7 }),
      lots: fc.oneof(
        { weight: 9, arbitrary: fc.integer({ min: 1, max: 60_000 }) },
        { weight: 1, arbitrary: fc.constantFrom(0, 10_000_000_001) },
      ),
    }),
  },
);

/** The exclusive market D: its id, its outcomes' ids, and their Yes option ids (No = Yes + 1). */
const exclusiveMarketId = 4;
const exclusiveOutcomeIds = [4, 5, 6];
const exclusiveYesIds = [7, 9, 11];

/** Markets: 1 (tick 0.01, fees), 2 (tick 0.1, no fees, tiny minimum), 3 (left in draft). */
const setup: ExchangeCommand[] = [
  createMarketCommand({ title: "A", makerFeeBps: 20, takerFeeBps: 50 }),
  createMarketCommand({ title: "B", tickSize: 10_000_000n, minOrderSize: 10_000n }),
  createMarketCommand({ title: "C" }),
  createMarketCommand({
    title: "D",
    makerFeeBps: 10,
    takerFeeBps: 20,
    exclusive: true,
    outcomes: ["D1", "D2", "D3"].map((name) => ({ name, options: null })),
  }),
  { type: "OpenMarket", marketId: 1 },
  { type: "OpenMarket", marketId: 2 },
  { type: "OpenMarket", marketId: exclusiveMarketId },
  ...users.map(
    (userId): ExchangeCommand => ({
      type: "Deposit",
      userId,
      amount: 50_00_000_000n,
      txHash: `0xsetup${userId}`,
    }),
  ),
  // Users 1 and 3 start with Yes shares, 2 and 4 with No shares, in both open markets.
  ...[1, 2].flatMap((marketId) =>
    users.map((userId) =>
      limitOrderCommand({
        userId,
        marketId,
        outcomeId: marketId,
        optionId: marketId * 2 - 1 + ((userId + 1) % 2),
        side: "BUY",
        limitPrice: 50_000_000n,
        shares: 500_000_000n,
      }),
    ),
  ),
  // In D too: every user holds 5 Yes or 5 No of each outcome.
  ...exclusiveOutcomeIds.flatMap((outcomeId, index) =>
    users.map((userId) =>
      limitOrderCommand({
        userId,
        marketId: exclusiveMarketId,
        outcomeId,
        optionId: exclusiveYesIds[index]! + ((userId + 1) % 2),
        side: "BUY",
        limitPrice: 50_000_000n,
        shares: 500_000_000n,
      }),
    ),
  ),
];
/** Each market's tick in atoms, by market id - 1 (the exclusive market D's is 0.01 too). */
const tickAtoms = [1_000_000n, 10_000_000n, 1_000_000n, 1_000_000n];

function toCommand(stepValue: Step, nowMs: number, state: ExchangeState): ExchangeCommand {
  switch (stepValue.kind) {
    case "deposit":
      return {
        type: "Deposit",
        userId: stepValue.user,
        amount: BigInt(stepValue.cents) * 1_000_000n,
        txHash: `0x${stepValue.tx}`,
      };
    case "limit": {
      const marketId = stepValue.market + 1;
      const ticks = stepValue.market === 1 ? Math.round(stepValue.tick / 10) : stepValue.tick;
      return limitOrderCommand({
        userId: stepValue.user,
        marketId,
        outcomeId: marketId,
        optionId: marketId * 2 - 1 + stepValue.option,
        side: stepValue.side,
        limitPrice: BigInt(ticks) * tickAtoms[stepValue.market]!,
        shares: BigInt(stepValue.lots) * 10_000n,
        timeInForce: stepValue.tif,
        expiresAtMs: stepValue.tif === "GTD" ? nowMs + stepValue.expiresInMs : null,
        clientOrderId: stepValue.clientOrderId === null ? null : `c${stepValue.clientOrderId}`,
        // A quarter of the orders are post-only (refused when they would trade, or with FOK/FAK).
        ...(stepValue.postOnly ? { postOnly: true } : {}),
      });
    }
    case "market": {
      const marketId = stepValue.market + 1;
      const size = BigInt(stepValue.size) * 10_000n;
      return marketOrderCommand({
        userId: stepValue.user,
        marketId,
        outcomeId: marketId,
        optionId: marketId * 2 - 1 + stepValue.option,
        side: stepValue.side,
        amount: stepValue.side === "BUY" ? size : null,
        shares: stepValue.side === "SELL" ? size : null,
      });
    }
    case "cancel":
      return { type: "CancelOrder", userId: stepValue.user, orderId: stepValue.orderId };
    case "amend": {
      // Mostly the owner amends its resting order, on its market's tick; the rest is refused.
      const orders = state.orders.values();
      const resting = stepValue.owner
        ? orders[stepValue.orderId % Math.max(1, orders.length)]
        : state.orders.get(stepValue.orderId);
      const marketId = resting?.marketId ?? 1;
      const ticks =
        marketId === 2 && stepValue.tick !== null ? Math.round(stepValue.tick / 10) : stepValue.tick;
      return {
        type: "AmendOrder",
        userId: stepValue.owner && resting !== undefined ? resting.userId : stepValue.user,
        orderId: resting?.orderId ?? stepValue.orderId,
        shares: stepValue.lots === null ? null : BigInt(stepValue.lots) * 10_000n,
        limitPrice: ticks === null ? null : BigInt(ticks) * tickAtoms[marketId - 1]!,
      };
    }
    case "heartbeat":
      return { type: "Heartbeat", userId: stepValue.user, timeoutMs: stepValue.timeoutMs };
    case "trip":
      // Refused unless the user's switch is due (the scheduler sends it only then).
      return { type: "TripDeadMansSwitch", userId: stepValue.user };
    case "cancelAll": {
      // Market 4 does not exist; a book without its market is refused.
      const marketId = stepValue.market === null ? null : stepValue.market + 1;
      const outcomeId = stepValue.book ? (marketId ?? 1) : null;
      return { type: "CancelAllOrders", userId: stepValue.user, marketId, outcomeId };
    }
    case "expire":
      return { type: "ExpireOrders" };
    case "close":
      return { type: "CloseMarket", marketId: stepValue.market + 1 };
    case "withdraw":
      return {
        type: "RequestWithdrawal",
        userId: stepValue.user,
        amount: BigInt(stepValue.cents) * 1_000_000n,
        fee: BigInt(stepValue.feeCents) * 1_000_000n,
        address: "0xabc",
      };
    case "withdrawal": {
      const { withdrawalId } = stepValue;
      switch (stepValue.action) {
        case "cancel":
          return { type: "CancelWithdrawal", userId: stepValue.user, withdrawalId };
        case "approve":
          return { type: "ApproveWithdrawal", withdrawalId };
        case "reject":
          return { type: "RejectWithdrawal", withdrawalId };
        case "complete":
          return { type: "CompleteWithdrawal", withdrawalId };
        default: {
          const unreachable: never = stepValue.action;
          throw new Error(`unknown action ${unreachable}`);
        }
      }
    }
    case "exclusiveLimit":
      return limitOrderCommand({
        userId: stepValue.user,
        marketId: exclusiveMarketId,
        outcomeId: exclusiveOutcomeIds[stepValue.outcome]!,
        optionId: exclusiveYesIds[stepValue.outcome]! + stepValue.option,
        side: stepValue.side,
        limitPrice: BigInt(stepValue.tick) * 1_000_000n,
        shares: BigInt(stepValue.lots) * 10_000n,
      });
    case "convert":
      return {
        type: "ConvertPositions",
        userId: stepValue.user,
        marketId: exclusiveMarketId,
        outcomeIds: exclusiveOutcomeIds.filter((_id, index) => (stepValue.listed >> index) & 1),
        shares: BigInt(stepValue.lots) * 10_000n,
      };
    case "advance":
      throw new Error("advance is not a command");
    default: {
      const unreachable: never = stepValue;
      throw new Error(`unknown step ${JSON.stringify(unreachable)}`);
    }
  }
}

interface Run {
  fast: ExchangeState;
  reference: ExchangeState;
  journal: ExchangeEvent[];
  accepted: number;
}

const fastDecider = createExchangeDecider("fast");
const referenceDecider = createExchangeDecider("reference");

function runBoth(steps: readonly Step[], roundTripAt: number): Run {
  const run: Run = {
    fast: fastDecider.initialState(),
    reference: referenceDecider.initialState(),
    journal: [],
    accepted: 0,
  };
  let nowMs = 1_700_000_000_000;
  let sequence = 0n;
  const commands: (ExchangeCommand | number)[] = [
    ...setup,
    ...steps.map((s) => (s.kind === "advance" ? s.ms : s)),
  ].map((entry) => entry as ExchangeCommand | number);
  for (let index = 0; index < commands.length; index++) {
    const entry = commands[index]!;
    if (typeof entry === "number") {
      nowMs += entry;
      continue;
    }
    const command =
      "kind" in (entry as object) ? toCommand(entry as unknown as Step, nowMs, run.fast) : entry;
    const context: CommandContext = { nowMs, sequence: ++sequence };
    const hashBefore = stateHash(run.fast);
    const fastDecision = fastDecider.decide(run.fast, command, context);
    const referenceDecision = referenceDecider.decide(run.reference, command, context);
    assert.deepEqual(
      fastDecision,
      referenceDecision,
      `both books decide ${JSON.stringify(command, bigintText)} alike`,
    );
    assert.equal(stateHash(run.fast), hashBefore, "decide does not touch the state");
    if (fastDecision.ok) {
      run.accepted++;
      for (const event of fastDecision.events) {
        fastDecider.evolve(run.fast, event);
        referenceDecider.evolve(run.reference, event);
        run.journal.push(event);
      }
    }
    assertInvariants(run.fast);
    assertInvariants(run.reference);
    assert.equal(stateHash(run.fast), stateHash(run.reference), "both books hold the same state");
    if (index === roundTripAt) {
      // Continue from a decoded snapshot: the rebuilt books must keep every order's priority.
      run.fast = exchangeStateCodec.decode(exchangeStateCodec.encode(run.fast));
    }
  }
  return run;
}

function bigintText(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? `${value}n` : value;
}

describe("exchange properties over random command streams", () => {
  it("the fast and the reference book decide alike and hold identical states after every command", () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 200, size: "max" }),
        fc.nat(250),
        (steps, roundTripAt) => {
          runBoth(steps, roundTripAt);
        },
      ),
      { numRuns: runs },
    );
  });

  it("the codec round-trips and replaying the journal rebuilds the identical encoding", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 200, size: "max" }), (steps) => {
        const run = runBoth(steps, -1);
        const encoded = encodeState(run.fast);
        assert.equal(exchangeStateCodec.encode(exchangeStateCodec.decode(encoded)), encoded);
        assert.equal(
          referenceExchangeStateCodec.encode(referenceExchangeStateCodec.decode(encoded)),
          encoded,
        );
        assertInvariants(exchangeStateCodec.decode(encoded));
        const replayed = run.journal.reduce(
          (state, event) => fastDecider.evolve(state, event),
          fastDecider.initialState(),
        );
        assert.equal(encodeState(replayed), encoded);
        // Events are plain data: they survive JSON with tagged bigints unchanged.
        const wire = JSON.stringify(run.journal, (_key, value) =>
          typeof value === "bigint" ? { $bigint: String(value) } : value,
        );
        const back = JSON.parse(wire, (_key, value) =>
          value && typeof value === "object" && "$bigint" in value ? BigInt(value.$bigint) : value,
        );
        assert.deepEqual(back, run.journal);
      }),
      { numRuns: Math.max(10, Math.floor(runs / 3)) },
    );
  });

  it("random streams do trade: each cross type occurs, and conversions too", () => {
    const crosses = new Set<string>();
    let conversions = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 50, maxLength: 200, size: "max" }), (steps) => {
        const run = runBoth(steps, -1);
        for (const event of run.journal) if (event.type === "TradeExecuted") crosses.add(event.cross);
        conversions += run.journal.filter((event) => event.type === "PositionsConverted").length;
      }),
      // A fixed seed: this checks what the generator reaches, not the exchange, and over random
      // seeds 40 streams give 41–71 conversions (16 runs), so a chance seed once gave 38 and failed
      // CI. Seed 31 gives 54; a generator that stops making conversions or a cross still fails.
      { numRuns: 40, seed: 31 },
    );
    assert.deepEqual([...crosses].sort(), ["MERGE", "MINT", "TRANSFER"]);
    assert.ok(conversions >= 40, `only ${conversions} conversions`);
  });
});
