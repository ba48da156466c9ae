// bench:disk — disk used per order, with the journal archive and without it (the baseline), on the
// platform's own exchange host (journal, snapshots and every read model in one SQLite file). The
// same seeded stream runs twice: LIMIT orders from 200 users around 0.5 on 4 books, about half of
// them crossing (trades), a cancel now and then. "Used" is SQLite's pages in use (the file does not
// shrink: freed pages are reused by later rows), plus the archive's compressed segments. Runs
// --orders (default 50,000) and extrapolates linearly to a million: the growth per order is flat
// once the user history index and the books reach their steady size.
//
//   npm run bench:disk [-- --orders 50000]

import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { createMarketCommand, limitOrderCommand } from "../src/core/exchange.js";
import { openExchangeHost } from "../src/exchange/exchange-host.js";
import { openDatabase } from "../src/store/sqlite/database.js";

const { values } = parseArgs({ options: { orders: { type: "string", default: "50000" } } });
const ordersCount = Number(values.orders);
const usersCount = 200;
const cent = 1_000_000n;
const usdt = 100_000_000n;

interface DiskUse {
  readonly databaseBytes: number;
  readonly archiveBytes: number;
  readonly journalRows: number;
  readonly seconds: number;
}

async function run(archive: boolean): Promise<DiskUse> {
  const directory = mkdtempSync(join(tmpdir(), "predex-bench-disk-"));
  try {
    const db = openDatabase({ path: join(directory, "predex.db") });
    let nowMs = 1_800_000_000_000;
    const archiveDir = join(directory, "journal-archive");
    const host = await openExchangeHost({
      db,
      clock: () => (nowMs += 5),
      logger: pino({ level: "silent" }),
      onFatal: (error) => {
        throw error;
      },
      // A snapshot every 5,000 commands (the platform's default is 10,000): the live journal keeps
      // at most that many entries, so the run reaches its steady state sooner.
      limits: { snapshotEveryCommands: 5_000 },
      ...(archive ? { journalArchiveDir: archiveDir } : {}),
    });
    const { engine } = host;
    const books: { marketId: number; outcomeId: number; yes: number; no: number }[] = [];
    for (let book = 0; book < 4; book++) {
      const created = await engine.submit(createMarketCommand({ title: `disk ${book}`, takerFeeBps: 20 }));
      if (!created.ok || created.events[0]?.type !== "MarketCreated") throw new Error("no market");
      const { marketId, outcomes } = created.events[0];
      await engine.submit({ type: "OpenMarket", marketId });
      const outcome = outcomes[0]!;
      books.push({
        marketId,
        outcomeId: outcome.outcomeId,
        yes: outcome.options[0]!.optionId,
        no: outcome.options[1]!.optionId,
      });
    }
    for (let userId = 1; userId <= usersCount; userId++) {
      await engine.submit({ type: "Deposit", userId, amount: 1_000_000n * usdt, txHash: `0x${userId}` });
    }
    const started = performance.now();
    let random = 12_345;
    const next = () => {
      random = (random * 1_103_515_245 + 12_345) % 2_147_483_648;
      return random / 2_147_483_648;
    };
    const group = 64;
    for (let placed = 0; placed < ordersCount; placed += group) {
      const submissions = [];
      for (let index = 0; index < group && placed + index < ordersCount; index++) {
        const book = books[Math.floor(next() * books.length)]!;
        const yesSide = next() < 0.5;
        submissions.push(
          engine.submit(
            limitOrderCommand({
              userId: 1 + Math.floor(next() * usersCount),
              marketId: book.marketId,
              outcomeId: book.outcomeId,
              optionId: yesSide ? book.yes : book.no,
              side: "BUY",
              limitPrice: BigInt(46 + Math.floor(next() * 8)) * cent,
              shares: BigInt(1 + Math.floor(next() * 20)) * usdt,
              clientOrderId: next() < 0.3 ? `o${placed + index}` : null,
            }),
          ),
        );
      }
      await Promise.all(submissions);
      if (archive && placed % 10_000 < group) await host.journalArchiver?.runNow();
    }
    if (archive) await host.journalArchiver?.runNow();
    await host.close();
    db.pragma("wal_checkpoint(TRUNCATE)");
    const pageSize = Number(db.pragma("page_size", { simple: true }));
    const used =
      Number(db.pragma("page_count", { simple: true })) -
      Number(db.pragma("freelist_count", { simple: true }));
    const journalRows = Number(db.prepare("SELECT count(*) FROM journal").pluck().get());
    db.close();
    let archiveBytes = 0;
    if (archive) {
      for (const name of readdirSync(archiveDir)) archiveBytes += statSync(join(archiveDir, name)).size;
    }
    return {
      databaseBytes: used * pageSize,
      archiveBytes,
      journalRows,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const without = await run(false);
const withArchive = await run(true);
const perOrder = (use: DiskUse) => (use.databaseBytes + use.archiveBytes) / ordersCount;
const databasePerOrder = (use: DiskUse) => use.databaseBytes / ordersCount;
const ordersPerMegabyte = (bytesPerOrder: number) => Math.round((1_000_000 / bytesPerOrder) * 10) / 10;
console.log(
  JSON.stringify({
    bench: "disk",
    unit: "orders per MB of database",
    value: ordersPerMegabyte(databasePerOrder(withArchive)),
    baseline: { name: "journal kept in the database", value: ordersPerMegabyte(databasePerOrder(without)) },
    ratio: Math.round((databasePerOrder(without) / databasePerOrder(withArchive)) * 100) / 100,
    p50_ms: null,
    p99_ms: null,
    orders: ordersCount,
    databaseBytesPerOrder: Math.round(databasePerOrder(withArchive)),
    archiveBytesPerOrder: Math.round(withArchive.archiveBytes / ordersCount),
    totalBytesPerOrder: Math.round(perOrder(withArchive)),
    baselineBytesPerOrder: Math.round(perOrder(without)),
    perMillionOrdersMB: {
      database: Math.round(databasePerOrder(withArchive)),
      archive: Math.round(withArchive.archiveBytes / ordersCount),
      baselineDatabase: Math.round(perOrder(without)),
    },
    journalRowsLeft: withArchive.journalRows,
    seconds: [Math.round(without.seconds), Math.round(withArchive.seconds)],
  }),
);
