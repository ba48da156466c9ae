// Rough throughput of the durable commit path: the accounts engine on a SQLite file (WAL,
// synchronous=FULL) with the balances read model projected in each commit, at several batch
// sizes. Not part of the test run; `npx tsx test/engine/group-commit-throughput.ts` prints one
// JSON line per batch size. It measures the engine and the store, not a real core's decide cost.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Engine } from "../../src/engine/engine.js";
import { type AccountCommand, accountsCodec, accountsDecider } from "./accounts-domain.js";
import { openAccountsSqlite } from "./sqlite-accounts.js";

const accountsCount = 1000;
const batchSizes = [1, 16, 64, 256];
const measuredSeconds = 3;

// Under the repository (ignored by git), so the file sits on the same disk a real data dir would.
mkdirSync(join(process.cwd(), ".bench-tmp"), { recursive: true });
const directory = mkdtempSync(join(process.cwd(), ".bench-tmp", "engine-commit-"));

async function measure(journalBatchCommandsMax: number): Promise<void> {
  const { db, store, projectors } = openAccountsSqlite(
    join(directory, `commit-${journalBatchCommandsMax}.sqlite`),
  );
  const engine = await Engine.open({
    decider: accountsDecider,
    codec: accountsCodec,
    store,
    projectors,
    limits: { journalBatchCommandsMax, queueCommandsMax: 100_000, snapshotEveryCommands: 1_000_000 },
    onFatal: (error) => {
      throw error;
    },
  });
  const setup: Promise<unknown>[] = [];
  for (let index = 0; index < accountsCount; index++) {
    setup.push(engine.submit({ type: "open", accountId: `u${index}` }));
    setup.push(engine.submit({ type: "deposit", accountId: `u${index}`, amount: 1_000_000_000n }));
  }
  await Promise.all(setup);

  let next = 0;
  const transfer = (): AccountCommand => {
    next += 1;
    return {
      type: "transfer",
      from: `u${next % accountsCount}`,
      to: `u${(next * 7 + 3) % accountsCount}`,
      amount: BigInt((next % 100) + 1),
    };
  };
  // Enough clients that every batch can fill up; each sends its next command when answered.
  const clients = Math.max(4, journalBatchCommandsMax * 2);
  const latenciesMs: number[] = [];
  const deadline = performance.now() + measuredSeconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        await engine.submit(transfer());
        latenciesMs.push(performance.now() - sent);
      }
    }),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  await engine.close();
  db.close();
  latenciesMs.sort((a, b) => a - b);
  const percentile = (p: number) => Number(latenciesMs[Math.floor((latenciesMs.length - 1) * p)]!.toFixed(2));
  console.log(
    JSON.stringify({
      journalBatchCommandsMax,
      clients,
      commandsPerSecond: Math.round(latenciesMs.length / elapsedSeconds),
      latencyMsP50: percentile(0.5),
      latencyMsP99: percentile(0.99),
    }),
  );
}

try {
  for (const size of batchSizes) await measure(size);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
