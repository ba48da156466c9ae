// The forwarding engine's deadlines on an injected clock (src/cluster/forwarding-clock.ts): the
// default 20 s failover deadline is run through in virtual time, so these take milliseconds.
// - with no leader that takes the command until the deadline, the command is given up as "nothing was done";
// - the wait for read-your-writes after an answer ends at the command's own deadline (or one
//   attempt's time after an answer that came at it), not failoverDeadlineMs after the answer: an
//   answer in hand is given before a client's timeout (the SDK's is 30 s), never held up to 40 s.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { deriveCommandKey } from "../../src/cluster/command-auth.js";
import type { ForwardingClock } from "../../src/cluster/forwarding-clock.js";
import {
  defaultAttemptTimeoutMs,
  defaultFailoverDeadlineMs,
  ForwardingEngine,
} from "../../src/cluster/forwarding-engine.js";
import type { LocalCommandPort } from "../../src/cluster/local-command-port.js";
import { EngineStoppedError } from "../../src/engine/errors.js";
import type { AdvertisedLeader, EngineClusterStore } from "../../src/store/engine-cluster.js";
import {
  type AccountCommand,
  type AccountEvent,
  accountsCodec,
  accountsDecider,
} from "../engine/accounts-domain.js";
import { memoryStore } from "../engine/harness.js";

/** Time that moves only when waited on: a wait ends at once, later by its length unless cut short. */
function virtualClock(): ForwardingClock {
  let nowMs = 0;
  return {
    now: () => nowMs,
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        const until = nowMs + Math.max(0, ms);
        setImmediate(() => {
          if (!signal?.aborted) nowMs = Math.max(nowMs, until);
          resolve();
        });
      }),
  };
}

const leaderFrom = 19_500;
const leader: AdvertisedLeader = { epoch: 1n, url: "http://127.0.0.1:9/" };

async function apiNode(clock: ForwardingClock, local?: LocalCommandPort<AccountCommand, AccountEvent>) {
  const cluster: EngineClusterStore<AccountCommand, AccountEvent> = {
    journal: memoryStore(),
    // No leader until 19.5 s into the command's wait.
    currentLeader: async () => (clock.now() >= leaderFrom ? leader : undefined),
    findForwarded: async () => undefined,
    listenForAppends: async () => ({ close: async () => {} }),
  };
  return ForwardingEngine.start({
    decider: accountsDecider,
    codec: accountsCodec,
    cluster,
    key: deriveCommandKey(Buffer.alloc(32, 7)),
    logger: pino({ level: "silent" }),
    local,
    clock,
  });
}

describe("the forwarding engine's deadlines, in virtual time", () => {
  it("no leader takes the command until the deadline: nothing was done, after the whole deadline and no longer", async () => {
    const clock = virtualClock();
    const replica = await apiNode(clock);
    const startedAt = performance.now();
    await assert.rejects(replica.submit({ type: "open", accountId: "ann" }), (error: unknown) => {
      // The leader appeared at 19.5 s and took nothing (its port is closed): nothing was done.
      assert.ok(error instanceof EngineStoppedError, `got ${String(error)}`);
      return true;
    });
    assert.ok(clock.now() >= defaultFailoverDeadlineMs, `gave up at ${clock.now()} ms`);
    assert.ok(clock.now() < defaultFailoverDeadlineMs + 300, `gave up at ${clock.now()} ms`);
    assert.equal(replica.stats.gaveUp, 1);
    assert.ok(replica.stats.retries > 50, "it looked for a leader again and again");
    assert.ok(performance.now() - startedAt < 15_000, "virtual time, not real waiting");
    await replica.close();
  });

  it("an answer that comes near the deadline is given by the deadline plus one attempt, not a whole deadline later", async () => {
    const clock = virtualClock();
    let answeredAt: number | undefined;
    // The leader commits at sequence 7, but this replica's journal never shows it (a database that
    // stopped answering the replica's reads): read-your-writes cannot be had.
    const local: LocalCommandPort<AccountCommand, AccountEvent> = {
      serves: (advertised) => advertised.url === leader.url,
      submit: async () => {
        answeredAt = clock.now();
        return { ok: true, sequence: 7n, nowMs: clock.now(), events: [] };
      },
      submitMany: async () => ({ ok: false, refused: "stopped", message: "not in this test" }),
      onCommitted: () => () => {},
    };
    const replica = await apiNode(clock, local);
    const result = await replica.submit({ type: "open", accountId: "bea" });
    assert.ok(result.ok && result.sequence === 7n, "the leader's answer, as it is");
    assert.ok(answeredAt !== undefined && answeredAt >= leaderFrom);
    const givenAt = clock.now();
    assert.ok(
      givenAt <= Math.max(defaultFailoverDeadlineMs, answeredAt + defaultAttemptTimeoutMs) + 50,
      `given at ${givenAt} ms, the leader answered at ${answeredAt} ms`,
    );
    assert.ok(givenAt >= defaultFailoverDeadlineMs, "it waited for read-your-writes until the deadline");
    assert.equal(replica.committedSequence, 0n);
    await replica.close();
  });
});
