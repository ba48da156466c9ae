// The forwarding rules as a pure function (src/cluster/forwarding-steps.ts): unit cases for each
// rule, and properties over every combination of inputs, including whole runs against a modelled
// cluster whose leaders take, lose and refuse the command at random. The safety the rules exist
// for: the command is never sent to a later epoch while an earlier one may still commit it, and
// "nothing was done" is never said of a command that may have been applied.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  type AttemptOutcome,
  type ForwardingMoment,
  type ForwardingProgress,
  type JournalWord,
  nextStep,
  retryWaitMs,
  type Seen,
  startOfForwarding,
  verdictAtDeadline,
} from "../../src/cluster/forwarding-steps.js";

const early: ForwardingMoment = { nowMs: 0, deadlineMs: 1_000, running: true, partlySettled: false };
const late: ForwardingMoment = { ...early, nowMs: 1_000 };
const taken = (epoch: bigint): ForwardingProgress => ({ pass: 1, unsettledEpoch: epoch });

const epochs = fc.bigInt({ min: 1n, max: 6n });
const outcomes = fc.constantFrom<AttemptOutcome>("answered", "overloaded", "not-taken", "unknown");
const words = fc.constantFrom<JournalWord>("committed", "missing", "lookup failed");
const progresses = fc.record({ pass: fc.nat(40), unsettledEpoch: fc.option(epochs, { nil: undefined }) });
const moments = fc.record({
  nowMs: fc.nat(2_000),
  deadlineMs: fc.nat(2_000),
  running: fc.boolean(),
  partlySettled: fc.boolean(),
});
const seens: fc.Arbitrary<Seen> = fc.oneof(
  fc.record({ kind: fc.constant("leader" as const), epoch: fc.option(epochs, { nil: undefined }) }),
  fc.record({ kind: fc.constant("journal" as const), epoch: epochs, word: words }),
  fc.record({ kind: fc.constant("attempt" as const), epoch: epochs, outcome: outcomes }),
);

describe("the forwarding steps", () => {
  it("sends to the first leader, and again to the same epoch after a lost answer", () => {
    assert.equal(nextStep(startOfForwarding, { kind: "leader", epoch: 1n }, early).step.kind, "send");
    assert.equal(nextStep(taken(1n), { kind: "leader", epoch: 1n }, early).step.kind, "send");
  });

  it("asks the journal before sending to a later epoch than one that may hold the command", () => {
    assert.equal(nextStep(taken(1n), { kind: "leader", epoch: 2n }, early).step.kind, "ask journal");
    const missing = nextStep(taken(1n), { kind: "journal", epoch: 2n, word: "missing" }, early);
    assert.deepEqual(missing, { progress: { pass: 1, unsettledEpoch: undefined }, step: { kind: "send" } });
    assert.equal(
      nextStep(taken(1n), { kind: "journal", epoch: 2n, word: "committed" }, early).step.kind,
      "done",
    );
    const failed = nextStep(taken(1n), { kind: "journal", epoch: 2n, word: "lookup failed" }, early);
    assert.equal(failed.step.kind, "retry");
    assert.equal(failed.progress.unsettledEpoch, 1n, "a failed lookup proves nothing");
  });

  it("sends nothing to a leader older than one that may hold the command", () => {
    assert.equal(nextStep(taken(3n), { kind: "leader", epoch: 2n }, early).step.kind, "retry");
  });

  it("a lost answer marks its epoch; a refusal does not", () => {
    const lost = nextStep(startOfForwarding, { kind: "attempt", epoch: 2n, outcome: "unknown" }, early);
    assert.equal(lost.progress.unsettledEpoch, 2n);
    const refused = nextStep(startOfForwarding, { kind: "attempt", epoch: 2n, outcome: "not-taken" }, early);
    assert.equal(refused.progress.unsettledEpoch, undefined);
  });

  it("a full queue is 'overloaded' only when no earlier attempt may commit and nothing of a group did", () => {
    const full: Seen = { kind: "attempt", epoch: 1n, outcome: "overloaded" };
    assert.equal(nextStep(startOfForwarding, full, early).step.kind, "overloaded");
    assert.equal(nextStep(taken(1n), full, early).step.kind, "retry");
    assert.equal(nextStep(startOfForwarding, full, { ...early, partlySettled: true }).step.kind, "retry");
  });

  it("gives up at the deadline or when the node stops, and never waits past the deadline", () => {
    const none: Seen = { kind: "leader", epoch: undefined };
    assert.equal(nextStep(startOfForwarding, none, late).step.kind, "give up");
    assert.equal(nextStep(startOfForwarding, none, { ...early, running: false }).step.kind, "give up");
    assert.deepEqual(nextStep({ pass: 9, unsettledEpoch: undefined }, none, { ...early, nowMs: 990 }).step, {
      kind: "retry",
      waitMs: 10,
    });
  });

  it("the verdict: unknown while the epoch that took it may still commit, or the journal cannot say", () => {
    const verdict = (
      unsettledEpoch: bigint | undefined,
      leaderEpoch: bigint | undefined,
      journal?: "missing" | "lookup failed",
    ) => verdictAtDeadline({ unsettledEpoch, leaderEpoch, journal, partlySettled: false }).kind;
    assert.equal(verdict(undefined, undefined), "nothing done");
    assert.equal(verdict(1n, 1n, "missing"), "unknown");
    assert.equal(verdict(1n, undefined, "missing"), "unknown");
    assert.equal(verdict(1n, 2n, "lookup failed"), "unknown");
    assert.equal(verdict(1n, 2n, "missing"), "nothing done");
    assert.deepEqual(
      verdictAtDeadline({
        unsettledEpoch: undefined,
        leaderEpoch: 2n,
        journal: undefined,
        partlySettled: true,
      }),
      { kind: "unknown", why: "partly committed" },
    );
  });

  it("property: every decision keeps the rules, whatever was seen", () => {
    fc.assert(
      fc.property(progresses, seens, moments, (progress, seen, moment) => {
        const { progress: next, step } = nextStep(progress, seen, moment);
        const ended = moment.nowMs >= moment.deadlineMs || !moment.running;
        if (step.kind === "send") {
          // Never past an epoch that may hold the command, unless the journal just said it does not.
          const cleared = seen.kind === "journal" && seen.word === "missing";
          if (seen.kind === "leader" && next.unsettledEpoch !== undefined) {
            assert.equal(seen.epoch, next.unsettledEpoch);
          } else assert.ok(cleared || seen.kind === "leader");
        }
        if (step.kind === "ask journal") {
          assert.ok(
            seen.kind === "leader" && seen.epoch !== undefined && progress.unsettledEpoch !== undefined,
          );
          assert.ok(seen.epoch > progress.unsettledEpoch);
        }
        if (step.kind === "overloaded") {
          assert.equal(progress.unsettledEpoch, undefined);
          assert.equal(moment.partlySettled, false);
        }
        if (step.kind === "retry") {
          assert.ok(!ended);
          assert.ok(step.waitMs > 0 && moment.nowMs + step.waitMs <= moment.deadlineMs);
          assert.equal(next.pass, progress.pass + 1);
        }
        if (step.kind === "give up") assert.ok(ended);
        // An epoch that may hold the command is forgotten only on the journal's word that it does not.
        if (progress.unsettledEpoch !== undefined && next.unsettledEpoch === undefined) {
          assert.ok(seen.kind === "journal" && seen.word === "missing");
        }
        if (seen.kind === "attempt" && seen.outcome === "unknown" && step.kind !== "done") {
          assert.equal(next.unsettledEpoch, seen.epoch);
        }
      }),
    );
  });

  it("property: 'nothing done' only when no epoch may hold the command and no part of a group committed", () => {
    fc.assert(
      fc.property(
        fc.option(epochs, { nil: undefined }),
        fc.option(epochs, { nil: undefined }),
        fc.option(fc.constantFrom("missing" as const, "lookup failed" as const), { nil: undefined }),
        fc.boolean(),
        (unsettledEpoch, leaderEpoch, journal, partlySettled) => {
          const verdict = verdictAtDeadline({ unsettledEpoch, leaderEpoch, journal, partlySettled });
          const mayHold =
            unsettledEpoch !== undefined &&
            !(journal === "missing" && leaderEpoch !== undefined && leaderEpoch > unsettledEpoch);
          assert.equal(verdict.kind === "nothing done", !mayHold && !partlySettled);
        },
      ),
    );
  });

  it("property: whole runs against a modelled cluster apply the command at most once and answer truthfully", () => {
    // Each pass reads the leader (the directory's epoch only grows; none at times), sends, and
    // feeds back the leader's answer; a leader that takes the command may commit it (answered, or
    // its answer lost); an epoch is fenced once a later one leads, so the journal is final for it.
    const passes = 40;
    const run = fc.record({
      leaders: fc.array(fc.option(fc.nat(2), { nil: undefined }), { minLength: passes, maxLength: passes }),
      outcomes: fc.array(outcomes, { minLength: passes, maxLength: passes }),
      commits: fc.array(fc.boolean(), { minLength: passes, maxLength: passes }),
      lookupsFail: fc.array(fc.boolean(), { minLength: passes, maxLength: passes }),
      elapsedMs: fc.array(fc.nat(300), { minLength: passes, maxLength: passes }),
    });
    fc.assert(
      fc.property(run, (world) => {
        let nowMs = 0;
        let progress = startOfForwarding;
        let epoch = 1n;
        const leaderAt = (pass: number): bigint | undefined => {
          const step = world.leaders[pass % passes];
          if (step === undefined) return undefined;
          epoch += BigInt(step === 2 ? 1 : 0); // a takeover now and then
          return epoch;
        };
        /** The epochs that took the command (ran it under its id). */
        const takenBy = new Set<bigint>();
        let applied = 0;
        let leaderEpoch = leaderAt(0);
        let seen: Seen = { kind: "leader", epoch: leaderEpoch };
        for (let i = 0; ; i++) {
          const moment = { nowMs, deadlineMs: 5_000, running: true, partlySettled: false };
          const decision = nextStep(progress, seen, moment);
          progress = decision.progress;
          const step = decision.step;
          nowMs += world.elapsedMs[i % passes]!;
          assert.ok(applied <= 1, "never applied twice");
          if (step.kind === "done" || step.kind === "overloaded") return;
          if (step.kind === "give up") {
            // The engine asks the journal once more when an epoch took it: committed, it answers from it.
            if (applied === 1 && progress.unsettledEpoch !== undefined) return;
            const verdict = verdictAtDeadline({
              unsettledEpoch: progress.unsettledEpoch,
              leaderEpoch,
              journal: progress.unsettledEpoch === undefined ? undefined : "missing",
              partlySettled: false,
            });
            if (verdict.kind === "nothing done") {
              assert.equal(applied, 0, "'nothing done' of an applied command");
              for (const taker of takenBy)
                assert.ok(leaderEpoch !== undefined && taker < leaderEpoch, "a taker may still commit");
            }
            return;
          }
          if (step.kind === "retry") {
            nowMs += step.waitMs;
            leaderEpoch = leaderAt(progress.pass);
            seen = { kind: "leader", epoch: leaderEpoch };
            continue;
          }
          assert.ok(leaderEpoch !== undefined, "a step about a leader follows a leader read");
          if (step.kind === "ask journal") {
            const word: JournalWord = world.lookupsFail[i % passes]!
              ? "lookup failed"
              : applied
                ? "committed"
                : "missing";
            seen = { kind: "journal", epoch: leaderEpoch, word };
            continue;
          }
          // "send": the leader of leaderEpoch runs it, unless this epoch already did (same id: joined).
          const outcome = world.outcomes[i % passes]!;
          if ((outcome === "answered" || outcome === "unknown") && !takenBy.has(leaderEpoch)) {
            takenBy.add(leaderEpoch);
            if (outcome === "answered" || world.commits[i % passes]!) applied += 1;
          }
          seen = { kind: "attempt", epoch: leaderEpoch, outcome };
        }
      }),
    );
  });

  it("backs off from 20 ms to 250 ms", () => {
    assert.deepEqual([0, 1, 2, 3, 4, 9].map(retryWaitMs), [20, 40, 80, 160, 250, 250]);
  });
});
