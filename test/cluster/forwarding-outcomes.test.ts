// What an API node's forwarding engine (src/cluster/forwarding-engine.ts) answers when the leader
// does not: only what it knows. Leaders here are real command ports (src/cluster/command-server.ts)
// over HTTP whose engine the test scripts (take the command and hang, commit late, commit and lose
// the answer); the journal is a memory store that the API node's replica follows, and the leader
// directory is the test's own, so a takeover is one assignment.
//
// - A leader that took the command and has not answered by the deadline may still commit it: the
//   answer is "outcome unknown" (the surfaces' 504/2001), never "nothing was done" (502/2002),
//   whose resend would place it twice (issue 27: orders 8350 and 8352, one logical order).
// - Once the journal says it committed, the journal's entry is the answer (same epoch or after a
//   takeover); once a later epoch leads and the journal does not hold it, it never will, so it goes
//   to the new leader (applied once) or, past the deadline, is "nothing was done".

import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { pino } from "pino";
import { deriveCommandKey } from "../../src/cluster/command-auth.js";
import { type CommandServer, startCommandServer } from "../../src/cluster/command-server.js";
import { ForwardingEngine } from "../../src/cluster/forwarding-engine.js";
import type { SubmitResult } from "../../src/engine/engine.js";
import { EngineOutcomeUnknownError, EngineStoppedError } from "../../src/engine/errors.js";
import type { JournalEntry } from "../../src/engine/store.js";
import type { AdvertisedLeader, EngineClusterStore } from "../../src/store/engine-cluster.js";
import type { MemoryEngineStore, MemoryTransaction } from "../../src/store/memory/engine-store.js";
import {
  type AccountCommand,
  type AccountEvent,
  type AccountsState,
  accountsCodec,
  accountsDecider,
} from "../engine/accounts-domain.js";
import { type AccountsEngine, gate, memoryStore, openAccountsEngine } from "../engine/harness.js";
import { waitUntil } from "../support/wait-until.js";

const key = deriveCommandKey(Buffer.alloc(32, 7));
const silent = pino({ level: "silent" });
// The takeover tests must reach the new leader within this: after the first attempt (150 ms) went
// unanswered and the test saw it (its waitUntil, every 20 ms) and moved the leader. That took
// 180–320 ms with three busy loops on two cores; at 600 ms a test timer 450 ms late failed it
// (shown), as a loaded CI machine's can be. 2 s leaves room; the deadline's meaning is the same.
const failoverDeadlineMs = 2_000;
const attemptTimeoutMs = 150;

type Submit = (command: AccountCommand, forwardId: string) => Promise<SubmitResult<AccountEvent>>;
type Replica = ForwardingEngine<AccountsState, AccountCommand, AccountEvent>;

/** The database both sides share: the journal, which forward id became which entry, the directory. */
interface World {
  readonly store: MemoryEngineStore<AccountCommand, AccountEvent>;
  /** The engine the scripted leaders commit through (one writer, as the fenced journal has). */
  readonly engine: AccountsEngine<MemoryTransaction>;
  readonly forwarded: Map<string, bigint>;
  leader: AdvertisedLeader | undefined;
  lookupFails: boolean;
}

const never = <T>() => new Promise<T>(() => {});

/** Until the command just submitted has had one attempt that got no answer (it will look again). */
async function firstAttemptUnanswered(replica: Replica): Promise<void> {
  const retries = replica.stats.retries;
  await waitUntil(() => replica.stats.retries > retries, { what: "an attempt without an answer" });
}

describe("an API node's answer when the leader does not answer", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const world = async (): Promise<World> => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store, { clock: Date.now });
    cleanups.push(() => engine.close());
    return { store, engine, forwarded: new Map(), leader: undefined, lookupFails: false };
  };

  /** Commits `command` as a leader does: the entry and its forward id in one go. */
  const commit = async (at: World, command: AccountCommand, forwardId: string) => {
    const result = await at.engine.submit(command);
    if (result.ok) at.forwarded.set(forwardId, result.sequence);
    return result;
  };

  const leaderAt = async (
    epoch: bigint,
    submit: Submit,
    accepting = () => true,
  ): Promise<{ leader: AdvertisedLeader; server: CommandServer; runs: string[] }> => {
    const runs: string[] = [];
    const scripted: Submit = (command, forwardId) => {
      runs.push(forwardId);
      return submit(command, forwardId);
    };
    const server = await startCommandServer<AccountCommand, AccountEvent>({
      submit: scripted,
      // A group's commands go through the same script, one after the other, each under its own id.
      submitMany: async (commands, forwardIds) => {
        const results: SubmitResult<AccountEvent>[] = [];
        for (const [index, command] of commands.entries()) {
          results.push(await scripted(command, forwardIds[index]!));
        }
        return results;
      },
      accepting,
      key,
      host: "127.0.0.1",
      port: 0,
      logger: silent,
    });
    cleanups.push(() => server.close());
    return { leader: { epoch, url: server.url }, server, runs };
  };

  const apiNode = async (at: World): Promise<Replica> => {
    const cluster: EngineClusterStore<AccountCommand, AccountEvent> = {
      journal: at.store,
      currentLeader: async () => at.leader,
      findForwarded: async <Command, Event>(forwardId: string) => {
        if (at.lookupFails) throw new Error("connect ECONNREFUSED 127.0.0.1:5432 (the test's outage)");
        const sequence = at.forwarded.get(forwardId);
        if (sequence === undefined) return undefined;
        for await (const entries of at.store.readJournal(sequence - 1n)) {
          return entries[0] as unknown as JournalEntry<Command, Event>;
        }
        return undefined;
      },
      listenForAppends: async () => ({ close: async () => {} }),
    };
    const replica = await ForwardingEngine.start({
      decider: accountsDecider,
      codec: accountsCodec,
      cluster,
      key,
      logger: silent,
      failoverDeadlineMs,
      attemptTimeoutMs,
    });
    cleanups.push(() => replica.close());
    return replica;
  };

  const journalOf = async (at: World) => {
    const commands: AccountCommand[] = [];
    for await (const entries of at.store.readJournal(0n))
      for (const entry of entries) commands.push(entry.command);
    return commands;
  };

  it("a leader that took the command and commits it after the deadline: outcome unknown, not 'nothing was done'", async () => {
    const at = await world();
    const late = gate();
    const first = await leaderAt(1n, async (command, forwardId) => {
      await late.wait();
      return commit(at, command, forwardId);
    });
    at.leader = first.leader;
    const replica = await apiNode(at);

    const answer = replica.submit({ type: "open", accountId: "alice" });
    await assert.rejects(answer, (error: unknown) => {
      assert.ok(error instanceof EngineOutcomeUnknownError, `got ${String(error)}`);
      assert.match(error.message, /may still commit/);
      return true;
    });
    assert.equal(replica.stats.outcomeUnknown, 1);
    assert.equal(replica.stats.gaveUp, 0);
    // The leader was only slow: the command lands. "Nothing was done" would have been a lie.
    late.open();
    await waitUntil(async () => (await journalOf(at)).length === 1, { timeoutMs: 5_000 });
    assert.deepEqual(await journalOf(at), [{ type: "open", accountId: "alice" }]);
    assert.equal(new Set(first.runs).size, 1, "the retries of the same id joined the one run");
  });

  it("a leader that never answers, and a journal that cannot be read: outcome unknown", async () => {
    const at = await world();
    const hung = await leaderAt(1n, () => never());
    at.leader = hung.leader;
    const replica = await apiNode(at);
    at.lookupFails = true;
    await assert.rejects(replica.submit({ type: "open", accountId: "bob" }), EngineOutcomeUnknownError);
    // A later epoch without the journal's word proves nothing either.
    const next = await leaderAt(2n, (command, forwardId) => commit(at, command, forwardId));
    const answer = replica.submit({ type: "open", accountId: "carol" });
    await firstAttemptUnanswered(replica);
    at.leader = next.leader;
    await assert.rejects(answer, EngineOutcomeUnknownError);
    assert.deepEqual(next.runs, [], "not sent to the new leader while the journal could not say");
  });

  it("a commit whose answer was lost, same leader: at the deadline the journal's entry is the answer", async () => {
    const at = await world();
    const lost = await leaderAt(1n, async (command, forwardId) => {
      await commit(at, command, forwardId);
      return never();
    });
    at.leader = lost.leader;
    const replica = await apiNode(at);
    const result = await replica.submit({ type: "open", accountId: "dave" });
    assert.ok(result.ok);
    assert.equal(result.sequence, 1n);
    assert.equal(replica.stats.settledFromJournal, 1);
    assert.equal(replica.committedSequence, 1n, "read-your-writes: the replica holds it");
  });

  it("after a takeover the journal proves it committed: answered from the journal, applied once", async () => {
    const at = await world();
    const old = await leaderAt(1n, async (command, forwardId) => {
      await commit(at, command, forwardId);
      return never();
    });
    const successor = await leaderAt(2n, (command, forwardId) => commit(at, command, forwardId));
    at.leader = old.leader;
    const replica = await apiNode(at);
    const answer = replica.submit({ type: "open", accountId: "erin" });
    await firstAttemptUnanswered(replica);
    at.leader = successor.leader;
    const result = await answer;
    assert.ok(result.ok && result.sequence === 1n);
    assert.deepEqual(successor.runs, []);
    assert.deepEqual(await journalOf(at), [{ type: "open", accountId: "erin" }]);
  });

  it("after a takeover the journal proves it never committed: sent to the new leader, applied once", async () => {
    const at = await world();
    // The old leader took it and was fenced before committing (its epoch is over: it never will).
    const old = await leaderAt(1n, () => never());
    const successor = await leaderAt(2n, (command, forwardId) => commit(at, command, forwardId));
    at.leader = old.leader;
    const replica = await apiNode(at);
    const answer = replica.submit({ type: "open", accountId: "frank" });
    await firstAttemptUnanswered(replica);
    at.leader = successor.leader;
    const result = await answer;
    assert.ok(result.ok && result.sequence === 1n);
    assert.equal(successor.runs.length, 1);
    assert.deepEqual(await journalOf(at), [{ type: "open", accountId: "frank" }]);
  });

  it("after a takeover the journal proves it never committed and no leader takes it in time: nothing was done", async () => {
    const at = await world();
    const old = await leaderAt(1n, () => never());
    const refusing = await leaderAt(
      2n,
      (command, forwardId) => commit(at, command, forwardId),
      () => false,
    );
    at.leader = old.leader;
    const replica = await apiNode(at);
    const answer = replica.submit({ type: "open", accountId: "grace" });
    await firstAttemptUnanswered(replica);
    at.leader = refusing.leader;
    await assert.rejects(answer, (error: unknown) => {
      assert.ok(error instanceof EngineStoppedError, `got ${String(error)}`);
      assert.match(error.message, /not committed/);
      return true;
    });
    assert.equal(replica.stats.gaveUp, 1);
    assert.deepEqual(await journalOf(at), []);
  });

  it("a group the leader took and never answered: outcome unknown", async () => {
    const at = await world();
    const hung = await leaderAt(1n, () => never());
    at.leader = hung.leader;
    const replica = await apiNode(at);
    await assert.rejects(
      replica.submitMany([
        { type: "open", accountId: "ivan" },
        { type: "open", accountId: "judy" },
      ]),
      EngineOutcomeUnknownError,
    );
  });

  it("a group half committed before a takeover: the rest goes to the new leader, each applied once", async () => {
    const at = await world();
    const old = await leaderAt(1n, async (command, forwardId) => {
      if (command.type === "open" && command.accountId === "ken") return commit(at, command, forwardId);
      return never();
    });
    const successor = await leaderAt(2n, (command, forwardId) => commit(at, command, forwardId));
    at.leader = old.leader;
    const replica = await apiNode(at);
    const answer = replica.submitMany([
      { type: "open", accountId: "ken" },
      { type: "open", accountId: "liz" },
    ]);
    await firstAttemptUnanswered(replica);
    at.leader = successor.leader;
    const results = await answer;
    assert.deepEqual(
      results.map((result) => result.ok && result.sequence),
      [1n, 2n],
    );
    assert.equal(successor.runs.length, 1, "only the command the journal did not hold");
    assert.deepEqual(await journalOf(at), [
      { type: "open", accountId: "ken" },
      { type: "open", accountId: "liz" },
    ]);
  });

  it("a group half committed, the rest taken by no leader in time: outcome unknown, not 'nothing was done'", async () => {
    const at = await world();
    const old = await leaderAt(1n, async (command, forwardId) => {
      if (command.type === "open" && command.accountId === "mia") return commit(at, command, forwardId);
      return never();
    });
    const refusing = await leaderAt(
      2n,
      (command, forwardId) => commit(at, command, forwardId),
      () => false,
    );
    at.leader = old.leader;
    const replica = await apiNode(at);
    const answer = replica.submitMany([
      { type: "open", accountId: "mia" },
      { type: "open", accountId: "ned" },
    ]);
    await firstAttemptUnanswered(replica);
    at.leader = refusing.leader;
    await assert.rejects(answer, (error: unknown) => {
      assert.ok(error instanceof EngineOutcomeUnknownError, `got ${String(error)}`);
      assert.match(error.message, /part of the group was committed/);
      return true;
    });
    assert.equal(replica.stats.gaveUp, 0);
    assert.deepEqual(await journalOf(at), [{ type: "open", accountId: "mia" }]);
  });

  it("no leader at all until the deadline: nothing was done", async () => {
    const at = await world();
    const replica = await apiNode(at);
    await assert.rejects(replica.submit({ type: "open", accountId: "heidi" }), EngineStoppedError);
  });
});
