// An engine node in a process of its own, for the tests that SIGSTOP or SIGKILL a leader. It takes
// leadership on the database named by argv, prints one JSON line per thing that happens, and obeys
// JSON lines on stdin. It stops by itself after lifetimeMs, so a failed test never leaves it behind.
//
//   mode "raw":    appends test entries straight through the fenced store: {"append": n}
//   mode "engine": runs the accounts-domain Engine and submits a bounded command stream: {"burst": n}

import { createInterface } from "node:readline";
import { Engine } from "../../src/engine/engine.js";
import { hashEncodedState } from "../../src/engine/recovery.js";
import { openPostgresPool } from "../../src/store/postgres/database.js";
import { EngineFencedError, PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { acquireLeadership, engineApplicationName } from "../../src/store/postgres/leadership.js";
import {
  type AccountCommand,
  type AccountEvent,
  accountsCodec,
  accountsDecider,
} from "../engine/accounts-domain.js";
import { scriptedCommands } from "../engine/harness.js";

const [mode, url, nodeId, leaseMsText, renewEveryMsText, lifetimeMsText] = process.argv.slice(2);
if (url === undefined || nodeId === undefined) throw new Error("usage: mode url nodeId leaseMs renewEveryMs");
const leaseMs = Number(leaseMsText ?? 5000);
const renewEveryMs = Number(renewEveryMsText ?? 1000);
setTimeout(() => process.exit(3), Number(lifetimeMsText ?? 60_000)).unref();

function say(message: Record<string, unknown>): void {
  process.stdout.write(
    `${JSON.stringify(message, (_key, value) => (typeof value === "bigint" ? value.toString() : value))}\n`,
  );
}

const pool = openPostgresPool({ url, applicationName: engineApplicationName(nodeId), poolConnectionsMax: 4 });
const leadership = await acquireLeadership(pool, {
  url,
  nodeId,
  leaseMs,
  renewEveryMs,
  onLost: (reason) => say({ event: "lost", message: reason.message }),
});
const commands = createInterface({ input: process.stdin });

if (mode === "raw") {
  const store = await PostgresEngineStore.open<{ type: string }, { type: string }>(pool, leadership);
  let next = (await store.lastSequence()) + 1n;
  say({ event: "leader", epoch: leadership.epoch, next });
  commands.on("line", async (line) => {
    const { append } = JSON.parse(line) as { append: number };
    const entries = Array.from({ length: append }, (_, index) => ({
      sequence: next + BigInt(index),
      nowMs: Date.now(),
      command: { type: "raw", by: nodeId },
      events: [{ type: "appended", nodeId }],
    }));
    // A connection the successor ended is not the refusal under test: retry on a fresh one.
    for (let attempt = 1; ; attempt++) {
      try {
        await store.commitBatch(entries, []);
        say({ event: "appended", first: next, last: next + BigInt(append - 1) });
        next += BigInt(append);
        return;
      } catch (error) {
        if (error instanceof EngineFencedError || attempt === 3) {
          say({ event: "refused", error: (error as Error).name, message: (error as Error).message });
          return;
        }
      }
    }
  });
} else {
  const store = await PostgresEngineStore.open<AccountCommand, AccountEvent>(pool, leadership);
  const engine = await Engine.open({
    decider: accountsDecider,
    codec: accountsCodec,
    store,
    clock: Date.now,
    onFatal: (error) => say({ event: "fatal", message: error.message }),
  });
  engine.onCommitted((entries) => {
    // The listener runs on the engine's turn, right after the commit, before anyone is answered.
    void engine.read((state, position) => {
      say({
        event: "committed",
        sequence: position.sequence,
        entries: entries.length,
        hash: hashEncodedState(accountsCodec.encode(state)),
      });
    });
  });
  say({ event: "leader", epoch: leadership.epoch, sequence: engine.committedSequence });
  commands.on("line", async (line) => {
    const { burst } = JSON.parse(line) as { burst: number };
    // At most 32 commands in flight, as a few clients would send them.
    const script = scriptedCommands(burst);
    let index = 0;
    const worker = async () => {
      while (index < script.length) {
        const command = script[index++]!;
        const result = await engine.submit(command).catch((error: Error) => ({ ok: false, error }));
        if ("sequence" in result) say({ event: "acknowledged", sequence: result.sequence });
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    say({ event: "burst-done" });
  });
}
