// `predex backup FILE` against a platform under trading load, `predex restore FILE` into a fresh data
// dir, and a platform started on it: the recovered engine is at the backup's journal sequence with
// exactly the state the original had there (state hash), and the partner's keys still work (the
// master key came along). restore refuses while a platform runs on the directory.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  exchangeDecider,
  stateHash,
} from "../../src/core/exchange.js";
import { initialPosition, replayJournal } from "../../src/engine/recovery.js";
import { startPlatform } from "../../src/server.js";
import { inspectBackup } from "../../src/store/sqlite/backup.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { testPlatformConfig, testPlatformEnv } from "./harness.js";
import { startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

const run = promisify(execFile);
const cliEntry = join(import.meta.dirname, "../../src/cli/main.ts");
/** Orders the load sends at most, so the loop is bounded even if the backup were slow. */
const loadOrdersMax = 4_000;

function predex(args: string[], dataDir: string) {
  return run(process.execPath, ["--import", "tsx", cliEntry, ...args], {
    env: { ...process.env, ...testPlatformEnv(dataDir) },
  });
}

let platform: TradingPlatform;
const workDir = mkdtempSync(join(tmpdir(), "predex-backup-"));
before(async () => {
  platform = await startTradingPlatform();
});
after(async () => {
  await platform.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe("predex backup and restore", () => {
  it("restores a backup taken under load to the exact state the original had at that sequence", async () => {
    const engine = platform.platform.deps.engine;
    // Where each batch ends: a backup is consistent at a commit boundary.
    const batchEnds = new Set<bigint>();
    engine.onCommitted((entries) => batchEnds.add(entries.at(-1)!.sequence));
    const market = await platform.openMarket();
    const buyers = await Promise.all([platform.fundedUser("100000"), platform.fundedUser("100000")]);

    let stop = false;
    let sent = 0;
    const trade = async (index: number) => {
      const { client } = buyers[index]!;
      while (!stop && sent < loadOrdersMax) {
        sent += 1;
        await client.createOrder({
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: index === 0 ? market.yes : market.no,
          side: "BUY",
          orderType: "LIMIT",
          limitPrice: [0.49, 0.5, 0.51][sent % 3]!,
          shares: 1 + (sent % 4),
        });
      }
    };
    const load = Promise.all([trade(0), trade(1), trade(0), trade(1)]);
    // Let the load get going before the backup starts, so the copy is taken mid-stream.
    while (sent < 50) await new Promise((resolve) => setImmediate(resolve));

    const file = join(workDir, "predex-backup.db");
    const backup = await predex(["backup", file], platform.dataDir);
    assert.match(backup.stdout, /backup written to .* journal up to sequence \d+/);
    assert.match(backup.stdout, /master key copied to .*\.master\.key/);
    const sentAtBackup = sent;
    // Keep trading a little after the backup, so the original moves past it.
    while (sent < sentAtBackup + 20 && sent < loadOrdersMax)
      await new Promise((resolve) => setImmediate(resolve));
    stop = true;
    await load;

    assert.equal(statSync(file).mode & 0o777, 0o600);
    const { journalSequence } = inspectBackup(file);
    assert.ok(journalSequence > 0n);
    assert.ok(engine.committedSequence > journalSequence, "the original went on after the backup");
    assert.ok(batchEnds.has(journalSequence), `the backup ends at a commit boundary (${journalSequence})`);
    // The state the original had at that sequence: its own journal folded from the start, the same
    // fold that then rebuilds its live state. The engine cannot be read at a past sequence: with
    // pipelined commits the next batch may already be decided into memory when one commits, and a
    // read then waits for it (a hash read there was a later state's, now and then).
    const original = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(platform.platform.db!);
    const atBackup = await replayJournal(
      exchangeDecider,
      original,
      initialPosition(exchangeDecider),
      journalSequence,
    );
    // Hashed before the fold goes on from it: replayJournal may change the state it is handed.
    const expectedHash = stateHash(atBackup.state);
    const live = await engine.read((state, position) => ({
      sequence: position.sequence,
      hash: stateHash(state),
    }));
    const atLive = await replayJournal(exchangeDecider, original, atBackup, live.sequence);
    assert.equal(stateHash(atLive.state), live.hash, "the original's journal rebuilds its live state");

    const freshDir = join(workDir, "restored");
    const restore = await predex(["restore", file], freshDir);
    assert.match(restore.stdout, /master key restored/);
    assert.match(restore.stdout, new RegExp(`journal up to sequence ${journalSequence}`));

    const restored = await startPlatform(testPlatformConfig(freshDir));
    try {
      assert.equal(restored.deps.engine.committedSequence, journalSequence);
      assert.equal(await restored.deps.engine.read((state) => stateHash(state)), expectedHash);
      // The partner's APP Secret is encrypted with the master key: signed requests still pass.
      const client = platform.client(platform.partner, { baseUrl: restored.addresses.gateway });
      const profile = await client.request("GET", `/user/${buyers[0]!.userId}`);
      assert.ok(profile !== undefined);
    } finally {
      await restored.close();
    }
  });

  it("refuses to restore onto a running platform and leaves its database alone", async () => {
    const file = join(workDir, "second.db");
    await predex(["backup", file], platform.dataDir);
    await assert.rejects(
      predex(["restore", file], platform.dataDir),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.match(
          error.stderr,
          /the platform is running on this data directory; stop it before restoring/,
        );
        return true;
      },
    );
    assert.ok(!existsSync(`${join(platform.dataDir, "predex.db")}.before-restore`));
    assert.equal(platform.platform.deps.engine.phase, "running");
  });

  it("refuses a file that is not a backup, and an existing target", async () => {
    const notADatabase = join(workDir, "not-a-db.txt");
    writeFileSync(notADatabase, "hello");
    await assert.rejects(
      predex(["restore", notADatabase], join(workDir, "elsewhere")),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.match(error.stderr, /not a SQLite database|is damaged|cannot be read/);
        return true;
      },
    );
    await assert.rejects(
      predex(["backup", notADatabase], platform.dataDir),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.match(error.stderr, /exists; choose a new file/);
        return true;
      },
    );
  });
});
