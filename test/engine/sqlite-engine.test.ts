import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { EngineFatalError } from "../../src/engine/errors.js";
import { encodePlainData } from "../../src/engine/journal-codec.js";
import type { SqliteDatabase } from "../../src/store/sqlite/database.js";
import { type AccountsState, accountsCodec, assertAccountsValid, foldEvents } from "./accounts-domain.js";
import { encodedState, openAccountsEngine, scriptedCommands } from "./harness.js";
import { openAccountsSqlite, readBalances } from "./sqlite-accounts.js";

const directory = mkdtempSync(join(tmpdir(), "predex-engine-"));
after(() => rmSync(directory, { recursive: true, force: true }));
let fileNumber = 0;
const nextPath = () => join(directory, `engine-${++fileNumber}.sqlite`);

function assertReadModelMatches(db: SqliteDatabase, state: Readonly<AccountsState>): void {
  const expected = new Map(
    [...state.accounts].map(([id, account]) => [id, [account.available, account.frozen]]),
  );
  assert.deepEqual(readBalances(db), expected);
}

describe("engine on SQLite", () => {
  it("commits, projects read models and recovers byte-identical state after a restart", async () => {
    const path = nextPath();
    const first = openAccountsSqlite(path);
    const { engine } = await openAccountsEngine(first.store, {
      projectors: first.projectors,
      limits: { snapshotEveryCommands: 97 },
    });
    const commands = scriptedCommands(2000);
    await Promise.all(commands.map((command) => engine.submit(command)));
    assert.ok((await engine.verifyReplay()).identical);
    await engine.read((state) => assertReadModelMatches(first.db, state));
    const live = await encodedState(engine);
    // No close(): the restart replays from the last periodic snapshot plus the journal tail.
    first.db.close();

    const second = openAccountsSqlite(path);
    const { engine: restarted } = await openAccountsEngine(second.store, { projectors: second.projectors });
    assert.equal(await encodedState(restarted), live);
    assert.ok((await restarted.verifyReplay()).identical);
    second.db.close();
  });

  it("stops when a projection fails and keeps journal and read models consistent on disk", async () => {
    const path = nextPath();
    const first = openAccountsSqlite(path);
    let commits = 0;
    const { engine, fatalErrors } = await openAccountsEngine(first.store, {
      projectors: [
        ...first.projectors,
        () => {
          commits += 1;
          if (commits === 5) throw new Error("read model constraint violated");
        },
      ],
      limits: { journalBatchCommandsMax: 8 },
    });
    const acknowledged: bigint[] = [];
    for (const command of scriptedCommands(200)) {
      try {
        const result = await engine.submit(command);
        if (result.ok) acknowledged.push(result.sequence);
      } catch (error) {
        assert.ok(error instanceof EngineFatalError);
        break;
      }
    }
    assert.equal(fatalErrors.length, 1);
    assert.equal(await first.store.lastSequence(), BigInt(acknowledged.length));
    first.db.close();

    const second = openAccountsSqlite(path);
    const { engine: recovered } = await openAccountsEngine(second.store, { projectors: second.projectors });
    assert.equal(recovered.committedSequence, BigInt(acknowledged.length));
    await recovered.read((state) => assertReadModelMatches(second.db, state));
    second.db.close();
  });

  it("keeps every acknowledged command when the process is killed with SIGKILL mid-burst", async () => {
    const path = nextPath();
    const childPath = fileURLToPath(new URL("./fixtures/sigkill-child.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", childPath, path], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acknowledged = new Map<bigint, string>();
    let buffered = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killed = new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        for (const line of lines) {
          const match = /^ack (\d+) (.*)$/.exec(line);
          if (match) acknowledged.set(BigInt(match[1]!), match[2]!);
        }
        if (acknowledged.size >= 3000 && !child.killed) child.kill("SIGKILL");
      });
      child.on("exit", (_code, signal) =>
        signal === "SIGKILL" ? resolve() : reject(new Error(`child exited on its own: ${stderr}`)),
      );
    });
    await killed;

    const { db, store, projectors } = openAccountsSqlite(path);
    const { engine } = await openAccountsEngine(store, { projectors });
    for (const sequence of acknowledged.keys()) assert.ok(sequence <= engine.committedSequence);
    const journaled = new Map<bigint, string>();
    const allEvents = [];
    for await (const batch of store.readJournal(0n)) {
      for (const entry of batch) {
        journaled.set(entry.sequence, encodePlainData(entry.events));
        allEvents.push(...entry.events);
      }
    }
    for (const [sequence, events] of acknowledged)
      assert.equal(journaled.get(sequence), events, `${sequence}`);
    assert.equal(await encodedState(engine), accountsCodec.encode(foldEvents(allEvents)));
    await engine.read((state) => {
      assertAccountsValid(state);
      assertReadModelMatches(db, state);
    });
    assert.ok((await engine.verifyReplay()).identical);
    db.close();
  });
});
