// The web console's speed in a real browser (Debian's Chromium driven by playwright-core) against
// the platform of `npm start` (demo seed + market maker, in this process, on loopback):
//  - first render of a market page: navigation start → the live book first on screen (the page's
//    `predex:book-painted` mark), over BENCH_CONSOLE_LOADS fresh tabs (default 30);
//  - book updates: for each batch of /ws/market messages, the first message's arrival → the
//    batch rendered (the page's `predex:book-frame` measures; the paint follows in that frame),
//    with the market maker quoting every 50 ms for BENCH_CONSOLE_SECONDS (default 10).
// Baseline, in the same run and browser: the listener's Swagger UI page (/docs), navigation start →
// its load event. `value` is market pages per second of one tab (1000 / mean first render).
// Bounded (loads, seconds, a hard deadline), self-stopping, loopback only.

import { performance } from "node:perf_hooks";
import type { Page } from "playwright-core";
import {
  browserSkipReason,
  ensureConsoleBuilt,
  launchConsoleBrowser,
  startDemoConsolePlatform,
} from "../test/e2e/console-browser.js";

const loads = Number(process.env.BENCH_CONSOLE_LOADS ?? 30);
const watchSeconds = Number(process.env.BENCH_CONSOLE_SECONDS ?? 10);
const botTickMs = 50;
const waitMs = 15_000;
const hardDeadlineMs = (watchSeconds + loads * 3 + 120) * 1_000;

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    console.error(`bench:console: gave up after ${hardDeadlineMs} ms`);
    process.exit(1);
  }, hardDeadlineMs);
  deadline.unref();
  if (browserSkipReason() !== undefined) process.exit(1);
  await ensureConsoleBuilt();
  const platform = await startDemoConsolePlatform(botTickMs);
  const browser = await launchConsoleBrowser();
  try {
    const publicUrl = platform.platform.addresses.public;
    const marketId = platform.demo.example!.market.marketId;
    const timed = async (url: string, ready: (page: Page) => Promise<number>): Promise<number> => {
      const page = await browser.page();
      await page.goto(url);
      const ms = await ready(page);
      await page.close();
      return ms;
    };
    const marketPage = (page: Page) =>
      page
        .locator('[data-testid="order-book"][data-state="live"]')
        .waitFor({ timeout: waitMs })
        .then(() => page.evaluate(() => performance.getEntriesByName("predex:book-painted")[0]!.startTime));
    // A string, since the Node types of `performance` do not know the browser's navigation entry.
    const docsLoadMs =
      '(() => { const n = performance.getEntriesByType("navigation")[0]; return n.loadEventEnd - n.startTime; })()';
    const docsPage = (page: Page) =>
      page.waitForLoadState("load").then(() => page.evaluate<number>(docsLoadMs));

    // One warm-up of each, so neither pays for Chromium's first start.
    await timed(`${publicUrl}/#/market/${marketId}`, marketPage);
    await timed(`${publicUrl}/docs`, docsPage);
    const firstRenders: number[] = [];
    const docsLoads: number[] = [];
    for (let index = 0; index < loads; index++) {
      firstRenders.push(await timed(`${publicUrl}/#/market/${marketId}`, marketPage));
      docsLoads.push(await timed(`${publicUrl}/docs`, docsPage));
    }

    const page = await browser.page();
    await page.goto(`${publicUrl}/#/market/${marketId}`);
    await marketPage(page);
    const watchStart = performance.now();
    const frames: number[] = [];
    while (performance.now() - watchStart < watchSeconds * 1_000) {
      await page.waitForTimeout(1_000);
      // Read and clear, so the page's own cap on kept measures never drops one we have not read.
      frames.push(
        ...(await page.evaluate(() => {
          const entries = performance.getEntriesByName("predex:book-frame").map((entry) => entry.duration);
          performance.clearMeasures("predex:book-frame");
          return entries;
        })),
      );
    }
    await page.close();
    const errors = browser.consoleErrors();
    if (errors.length > 0) throw new Error(`the pages logged errors: ${errors.join("; ")}`);

    firstRenders.sort((a, b) => a - b);
    docsLoads.sort((a, b) => a - b);
    frames.sort((a, b) => a - b);
    const value = 1_000 / mean(firstRenders);
    const baseline = 1_000 / mean(docsLoads);
    console.log(
      `market page first render (live book): p50 ${round(quantile(firstRenders, 0.5))} ms, p99 ${round(quantile(firstRenders, 0.99))} ms over ${loads} loads; /docs load p50 ${round(quantile(docsLoads, 0.5))} ms`,
    );
    console.log(
      `book batches: ${frames.length} in ${watchSeconds} s, arrival → rendered p50 ${round(quantile(frames, 0.5), 3)} ms, p99 ${round(quantile(frames, 0.99), 3)} ms, max ${round(frames[frames.length - 1] ?? Number.NaN, 3)} ms`,
    );
    console.log(
      JSON.stringify({
        bench: "console",
        unit: "market pages/s",
        value: round(value, 3),
        baseline: { name: "swagger-ui /docs page loads/s", value: round(baseline, 3) },
        ratio: round(value / baseline, 3),
        p50_ms: round(quantile(firstRenders, 0.5)),
        p99_ms: round(quantile(firstRenders, 0.99)),
        book_frames: frames.length,
        book_frame_p50_ms: round(quantile(frames, 0.5), 3),
        book_frame_p99_ms: round(quantile(frames, 0.99), 3),
      }),
    );
  } finally {
    await browser.close();
    await platform.stop();
  }
}

await main();
