// The web console in a real browser (Debian's Chromium, driven by playwright-core) against the
// platform of `npm start`: the demo seed and its market maker on loopback ports. The market pages
// show the bot's book moving live and agree with the REST book once it stops, and show the demo's
// exclusive event as one event (every outcome's Yes price side by side, each outcome's live book
// one click away); the operator's desk takes a market from draft to settled while an order placed
// through the SDK shows up, creates and resolves an exclusive event by its one winning outcome,
// approves a withdrawal, and shows the API's own message when an action is refused. Both pages are used at
// 1280 px and at a phone's width, by keyboard where a reader would, and no page may log an error.
// Screenshots of both pages are taken (CONSOLE_SCREENSHOTS=docs refreshes the README's, in docs/).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { demoMarkets } from "../../src/demo/content.js";
import {
  browserSkipReason,
  type ConsoleBrowser,
  type DemoConsolePlatform,
  desktopViewport,
  ensureConsoleBuilt,
  launchConsoleBrowser,
  phoneViewport,
  startDemoConsolePlatform,
} from "./console-browser.js";

const skip = browserSkipReason();
const botTickMs = 100;
const waitMs = 15_000;
/**
 * Screenshots go to a temporary folder, so a test run leaves the work tree as it was;
 * CONSOLE_SCREENSHOTS=docs writes them over the README's pictures in docs/.
 */
const screenshotsTemporary =
  process.env.CONSOLE_SCREENSHOTS === "docs" || skip !== undefined
    ? undefined
    : mkdtempSync(join(tmpdir(), "predex-console-shots-"));
const docsDirectory =
  screenshotsTemporary === undefined
    ? new URL("../../docs/", import.meta.url)
    : pathToFileURL(`${screenshotsTemporary}/`);

let platform: DemoConsolePlatform;
let browser: ConsoleBrowser;
let botStopped = false;

async function stopBot(): Promise<void> {
  if (botStopped) return;
  botStopped = true;
  await platform.demo.stop();
}

function assertNoConsoleErrors(): void {
  assert.deepEqual(browser.consoleErrors(), [], "the pages logged errors");
}

/** The page has no horizontal scroll: everything fits the viewport's width. */
async function assertFitsWidth(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({
    content: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  }));
  assert.ok(
    widths.content <= widths.viewport + 1,
    `page is ${widths.content}px wide in ${widths.viewport}px`,
  );
}

async function signIn(page: Page): Promise<void> {
  await page.goto(platform.platform.addresses.admin);
  // By keyboard: the token typed into its labelled field, Enter submits the form.
  await page.getByLabel("Admin token").fill(platform.platform.adminToken);
  await page.getByLabel("Admin token").press("Enter");
  await page.getByRole("navigation", { name: "Desk sections" }).waitFor();
}

async function marketStatus(marketId: string): Promise<string> {
  const response = await fetch(`${platform.platform.addresses.admin}/admin/markets/${marketId}`, {
    headers: { authorization: `Bearer ${platform.platform.adminToken}` },
  });
  return ((await response.json()) as { data: { status: string } }).data.status;
}

describe("the web console in Chromium", { skip }, () => {
  before(async () => {
    await ensureConsoleBuilt();
    platform = await startDemoConsolePlatform(botTickMs);
    browser = await launchConsoleBrowser();
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
    if (screenshotsTemporary !== undefined) rmSync(screenshotsTemporary, { recursive: true, force: true });
  });

  it("lists the demo's markets, by category and by search, and is usable by keyboard", async () => {
    const page = await browser.page();
    await page.goto(platform.platform.addresses.public);
    const cards = page.locator("a.card");
    await cards.first().waitFor({ timeout: waitMs });
    assert.equal(await cards.count(), demoMarkets.length);
    const firstRenderMs = await page.evaluate(() =>
      Math.round(performance.getEntriesByName("predex:list-rendered")[0]?.startTime ?? Number.NaN),
    );
    console.log(`market list: cards on screen ${firstRenderMs} ms after navigation started`);

    // A category chosen with the keyboard: focus its button, press Enter.
    const crypto = page.getByRole("button", { name: "Crypto", exact: true });
    await crypto.focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      () => document.querySelector('button[aria-pressed="true"]')?.textContent === "Crypto",
    );
    await page.waitForFunction(() =>
      [...document.querySelectorAll("a.card")].every((card) => card.textContent?.includes("Crypto")),
    );
    const cryptoTitles = demoMarkets.filter((market) => market.categoryKey === "crypto").map((m) => m.title);
    assert.equal(await cards.count(), cryptoTitles.length);

    const wanted = demoMarkets[0]!.title;
    const word = wanted.split(/\s+/).find((each) => /^[A-Za-z]{5,}$/.test(each))!;
    await page.getByRole("searchbox", { name: "Search markets" }).fill(word);
    await page.keyboard.press("Enter");
    await page.getByText(`Results for “${word}”`).waitFor();
    await page.locator("a.card", { hasText: wanted }).waitFor();

    // Tab reaches the market links; Enter opens one; the focus ring is drawn.
    await page.getByRole("button", { name: "All", exact: true }).click();
    await cards.nth(demoMarkets.length - 1).waitFor();
    await page.locator("body").focus();
    let onCard = false;
    for (let presses = 0; presses < 40 && !onCard; presses++) {
      await page.keyboard.press("Tab");
      onCard = await page.evaluate(() => document.activeElement?.matches("a.card") ?? false);
    }
    assert.ok(onCard, "Tab reaches a market card");
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.notEqual(outline, "none", "the focused link shows a focus ring");
    await page.keyboard.press("Enter");
    await page.waitForURL(/#\/market\/[0-9]+$/);
    await page.getByRole("heading", { level: 1 }).waitFor();
    await page.close();
    assertNoConsoleErrors();
  });

  it("shows the exclusive event as one event: every outcome's Yes price side by side, each book one click away", async () => {
    const event = platform.demo.seed.markets.find((market) => (market.outcomes?.length ?? 0) > 1)!;
    const outcomes = event.outcomes!;
    const person = platform.demo.seed.people[0]!;
    // The bot quotes every outcome's book before the page reads the prices.
    const deadlineMs = Date.now() + waitMs;
    for (;;) {
      const books = await Promise.all(
        outcomes.map((outcome) =>
          person.client.getBook({ marketId: event.marketId, outcomeId: outcome.outcomeId }),
        ),
      );
      if (books.every((book) => book.bids.length > 0 && book.asks.length > 0)) break;
      assert.ok(Date.now() < deadlineMs, "the bot quotes every outcome of the event");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const page = await browser.page();
    await page.goto(`${platform.platform.addresses.public}/#/market/${event.marketId}`);
    const panel = page.getByTestId("event-outcomes");
    await panel.waitFor({ timeout: waitMs });
    const names = demoMarkets
      .find((market) => market.title === event.title)!
      .exclusiveOutcomes!.map((each) => each.name);
    const buttons = panel.getByRole("button");
    assert.equal(await buttons.count(), names.length);
    // Side by side: one row of four at 1280 px.
    const tops = await buttons.evaluateAll((elements) =>
      elements.map((element) => element.getBoundingClientRect().top),
    );
    assert.equal(new Set(tops).size, 1, "the outcomes stand in one row");
    const prices = (
      await buttons.evaluateAll((elements) =>
        elements.map((element) => element.getAttribute("data-yes-price")),
      )
    ).map(Number);
    const yesSum = prices.reduce((sum, price) => sum + price, 0);
    assert.ok(Math.abs(yesSum - 1) <= 0.05, `the Yes prices shown add up to ${yesSum}`);
    await panel
      .getByTestId("event-yes-sum")
      .getByText(/Yes prices add up to/)
      .waitFor();

    // One click on an outcome: its live Yes book.
    const third = outcomes[2]!;
    await panel.getByRole("button", { name: new RegExp(`^${names[2]}:`) }).click();
    await page.getByRole("heading", { name: `Order book · ${names[2]} · Yes` }).waitFor();
    await page.locator('[data-testid="order-book"][data-state="live"]').waitFor({ timeout: waitMs });
    await page.getByTestId("order-book").locator("tr.bid td.price").first().waitFor({ timeout: waitMs });
    const expected = await person.client.getBook({ marketId: event.marketId, outcomeId: third.outcomeId });
    assert.ok(expected.bids.length > 0);
    assert.equal(
      await panel.getByRole("button", { name: new RegExp(`^${names[2]}:`) }).getAttribute("aria-pressed"),
      "true",
    );
    await page.screenshot({ path: new URL("console-event.png", docsDirectory).pathname, fullPage: true });
    // The list shows the event's outcomes side by side too.
    await page.goto(platform.platform.addresses.public);
    const card = page.locator("a.card", { hasText: event.title });
    await card.getByTestId("outcome-chances").waitFor({ timeout: waitMs });
    for (const name of names) assert.match((await card.textContent()) ?? "", new RegExp(name));

    const phone = await browser.page(phoneViewport);
    await phone.goto(`${platform.platform.addresses.public}/#/market/${event.marketId}`);
    await phone.getByTestId("event-outcomes").waitFor({ timeout: waitMs });
    await assertFitsWidth(phone);
    await phone.close();
    await page.close();
    assertNoConsoleErrors();
  });

  it("shows the market maker's book changing live, its trades and the price chart, at 1280 px and on a phone", async () => {
    const example = platform.demo.example!.market;
    const page = await browser.page();
    await page.goto(`${platform.platform.addresses.public}/#/market/${example.marketId}`);
    const book = page.getByTestId("order-book");
    await page.locator('[data-testid="order-book"][data-state="live"]').waitFor({ timeout: waitMs });
    const rendered = await page.evaluate(() =>
      ["predex:market-rendered", "predex:book-painted"].map((name) =>
        Math.round(performance.getEntriesByName(name)[0]?.startTime ?? Number.NaN),
      ),
    );
    console.log(
      `market page: detail on screen at ${rendered[0]} ms, live book at ${rendered[1]} ms (bench:console measures)`,
    );

    // The bot replaces its quotes every tick: the book the page paints keeps changing.
    const firstUpdates = Number(await book.getAttribute("data-updates"));
    const firstLevels = (await book.locator("tbody").textContent()) ?? "";
    await page.waitForFunction(
      (seen) =>
        Number(document.querySelector('[data-testid="order-book"]')?.getAttribute("data-updates")) >=
        seen + 3,
      firstUpdates,
      { timeout: waitMs },
    );
    await page.waitForFunction(
      (before) => document.querySelector('[data-testid="order-book"] tbody')?.textContent !== before,
      firstLevels.replace(/\s+/g, ""),
      { timeout: waitMs },
    );
    // Each painted batch of book messages leaves a measure (arrival → rendered); bench:console times them.
    const batches = await page.evaluate(() => performance.getEntriesByName("predex:book-frame").length);
    assert.ok(batches > 0, "book batches are measured");
    await page.getByTestId("trades").locator("tbody tr").first().waitFor({ timeout: waitMs });
    assert.equal((await page.locator(".chart canvas").count()) > 0, true, "the chart draws on a canvas");
    assert.equal(await page.getByText("Price history unavailable").count(), 0);
    await page.screenshot({ path: new URL("console-market.png", docsDirectory).pathname, fullPage: true });

    const phone = await browser.page(phoneViewport);
    await phone.goto(`${platform.platform.addresses.public}/#/market/${example.marketId}`);
    await phone.locator('[data-testid="order-book"][data-state="live"]').waitFor({ timeout: waitMs });
    await assertFitsWidth(phone);
    await phone.screenshot({
      path: new URL("console-market-phone.png", docsDirectory).pathname,
      fullPage: true,
    });
    await phone.close();

    // A message lost or garbled on the way: one `price_change` for the page's own asset reaches it
    // with a wrong size, so its copy of the book cannot match the hash that change carries; the page
    // re-subscribes and the fresh `book` re-seeds it. (Dropping a message instead does not always
    // leave the copy wrong: a change carries a level's new size, and the next change to the same
    // levels, or one for the other asset only, makes the dropped one moot, so a drop is not a
    // dependable divergence.)
    const gapped = await browser.page();
    let trackedAssetIds: string[] = [];
    let garbled = false;
    await gapped.routeWebSocket(/\/ws\/market$/, (route) => {
      const server = route.connectToServer();
      route.onMessage((message) => {
        const sent = parseJson(String(message)) as { assets_ids?: unknown } | undefined;
        if (Array.isArray(sent?.assets_ids)) trackedAssetIds = sent.assets_ids.map(String);
        server.send(message);
      });
      server.onMessage((message) => {
        if (!garbled) {
          const events = [parseJson(String(message))].flat() as {
            event_type?: string;
            price_changes?: { asset_id: string; size: string }[];
          }[];
          const ours = events
            .filter((event) => event?.event_type === "price_change")
            .flatMap((event) => event.price_changes ?? [])
            .filter((change) => trackedAssetIds.includes(change.asset_id));
          if (ours.length > 0) {
            for (const change of ours) change.size = `${change.size}7`;
            garbled = true;
            route.send(
              JSON.stringify(events.length === 1 && !String(message).startsWith("[") ? events[0] : events),
            );
            return;
          }
        }
        route.send(message);
      });
    });
    await gapped.goto(`${platform.platform.addresses.public}/#/market/${example.marketId}`);
    await gapped.waitForFunction(
      () => {
        const section = document.querySelector('[data-testid="order-book"]');
        return (
          Number(section?.getAttribute("data-reseeds")) >= 1 && section?.getAttribute("data-state") === "live"
        );
      },
      undefined,
      { timeout: waitMs },
    );
    assert.ok(garbled);
    assert.equal(await book.getAttribute("data-reseeds"), "0", "the page that lost nothing never re-seeded");

    // Once the bot stops, the book each page kept from `book` + `price_change` is the REST book. An
    // order the bot had in flight may still commit (and reach the pages) after stop() returns, so
    // the REST book is read again until both pages show it: they must converge, within waitMs.
    await stopBot();
    const person = platform.demo.seed.people[0]!;
    const cents = (price: string) => `${Number((Number(price) * 100).toFixed(2))}¢`;
    const rows = (levels: { price: string }[]) => levels.slice(0, 12).map((level) => cents(level.price));
    const shownOn = async (target: Page, side: "bid" | "ask") =>
      target.getByTestId("order-book").locator(`tr.${side} td.price`).allInnerTexts();
    const deadlineMs = Date.now() + waitMs;
    for (;;) {
      const expected = await person.client.getBook({
        marketId: example.marketId,
        outcomeId: example.outcomeId,
      });
      const wanted = { bids: rows(expected.bids), asks: rows(expected.asks).reverse() };
      const shown = await Promise.all(
        [page, gapped].map(async (target) => ({
          bids: await shownOn(target, "bid"),
          asks: await shownOn(target, "ask"),
        })),
      );
      const agree = shown.every(
        (book) =>
          JSON.stringify(book.bids) === JSON.stringify(wanted.bids) &&
          JSON.stringify(book.asks) === JSON.stringify(wanted.asks),
      );
      if (agree) break;
      if (Date.now() > deadlineMs) {
        assert.deepEqual(shown, [wanted, wanted], "both pages show the REST book once the bot has stopped");
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await gapped.close();
    await page.close();
    assertNoConsoleErrors();
  });

  it("takes a market from draft to settled on the desk, and shows an order placed through the SDK", async () => {
    const page = await browser.page();
    await page.goto(platform.platform.addresses.admin);
    // A wrong token is refused with the API's own words.
    browser.expectFailedRequest("/admin/partners");
    await page.getByLabel("Admin token").fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("unauthorized: Invalid admin token").waitFor();
    await signIn(page);

    // The overview shows /metrics figures, or says there are none on this platform.
    browser.expectFailedRequest("/metrics");
    await page
      .locator('[data-testid="metrics"], [data-testid="metrics-state"]')
      .first()
      .waitFor({ timeout: waitMs });

    await page.getByRole("button", { name: "Markets", exact: true }).click();
    const title = "Will the console test see its order?";
    await page.getByLabel("Title", { exact: true }).fill(title);
    await page.getByRole("button", { name: "Create draft" }).click();
    const created = await page
      .getByTestId("outcome")
      .getByText(/Draft market [0-9]+ created/)
      .textContent();
    const marketId = /Draft market ([0-9]+)/.exec(created ?? "")![1]!;
    const status = page.getByTestId("market-status");
    assert.equal(await status.textContent(), "draft");

    await page.getByRole("button", { name: "Open for trading" }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="market-status"]')?.textContent === "open",
    );

    const alice = platform.demo.seed.people[0]!;
    const detail = await alice.client.getMarketDetail(marketId);
    const outcome = detail.outcomes[0]!;
    const order = await alice.client.createOrder({
      marketId,
      outcomeId: outcome.outcomeId,
      optionId: outcome.options[0]!.optionId,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.42,
      shares: 10,
    });
    const row = page.getByTestId("market-orders").locator("tr", { hasText: order.orderId });
    await row.waitFor({ timeout: waitMs });
    const rowText = (await row.textContent()) ?? "";
    assert.match(rowText, /BUY/);
    assert.match(rowText, /42¢/);
    await page.screenshot({ path: new URL("console-desk.png", docsDirectory).pathname, fullPage: true });

    await page.getByRole("button", { name: "Close trading" }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="market-status"]')?.textContent === "closed",
    );
    await page.getByLabel(`Winner of ${outcome.name}`).selectOption({ label: "Yes" });
    await page.getByLabel("Challenge window (seconds)").fill("60");
    await page.getByRole("button", { name: "Resolve" }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="market-status"]')?.textContent === "resolving",
    );
    await page.getByRole("button", { name: "Finalize now" }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="market-status"]')?.textContent === "settled",
    );
    assert.equal(await marketStatus(marketId), "settled");
    await page.close();
    assertNoConsoleErrors();
  });

  it("creates an exclusive event on the desk and resolves it by its one winning outcome", async () => {
    const page = await browser.page();
    await signIn(page);
    await page.getByRole("button", { name: "Markets", exact: true }).click();
    await page.getByLabel("Title", { exact: true }).fill("Who wins the console cup?");
    await page.getByLabel(/Outcomes, one per line/).fill("Ada\nBrook\nCyd");
    await page.getByLabel(/Exclusive event/).check();
    await page.getByRole("button", { name: "Create draft" }).click();
    const created = await page
      .getByTestId("outcome")
      .getByText(/Draft market [0-9]+ created/)
      .textContent();
    const marketId = /Draft market ([0-9]+)/.exec(created ?? "")![1]!;
    await page.getByText("exclusive event").first().waitFor();
    await page.getByRole("button", { name: "Open for trading" }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="market-status"]')?.textContent === "open",
    );
    await page.getByRole("button", { name: "Close trading" }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="market-status"]')?.textContent === "closed",
    );
    await page.getByLabel("Winning outcome").selectOption({ label: "Brook" });
    await page.getByRole("button", { name: "Resolve" }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="market-status"]')?.textContent === "resolving",
    );
    await page.getByRole("button", { name: "Finalize now" }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="market-status"]')?.textContent === "settled",
    );
    const response = await fetch(`${platform.platform.addresses.admin}/admin/markets/${marketId}`, {
      headers: { authorization: `Bearer ${platform.platform.adminToken}` },
    });
    const settled = (
      (await response.json()) as {
        data: { exclusive: boolean; outcomes: { name: string; options: { isWin: boolean | null }[] }[] };
      }
    ).data;
    assert.equal(settled.exclusive, true);
    assert.deepEqual(
      settled.outcomes.map((outcome) => [outcome.name, outcome.options.map((option) => option.isWin)]),
      [
        ["Ada", [false, true]],
        ["Brook", [true, false]],
        ["Cyd", [false, true]],
      ],
    );
    await page.close();
    assertNoConsoleErrors();
  });

  it("approves a withdrawal from the desk", async () => {
    const bob = platform.demo.seed.people[1]!;
    const withdrawal = await bob.client.applyWithdrawal({
      amount: 12,
      address: `0x${"ab".repeat(20)}`,
    });
    const page = await browser.page();
    await signIn(page);
    await page.getByRole("button", { name: "Withdrawals", exact: true }).click();
    const row = page.locator(`tr[data-withdrawal-id="${withdrawal.withdrawId}"]`);
    await row.getByRole("button", { name: "Approve" }).click();
    await page
      .getByTestId("outcome")
      .getByText(`Withdrawal ${withdrawal.withdrawId} of user ${bob.userId} is now APPROVED.`)
      .waitFor();
    const history = await bob.client.getWithdrawHistory();
    assert.equal(
      history.records.find((each) => each.withdrawId === withdrawal.withdrawId)?.status,
      "APPROVED",
    );
    await page.close();
    assertNoConsoleErrors();
  });

  it("shows the API's own message when an action is refused", async () => {
    const body = { userId: "999999", amount: "1", txHash: "0xconsole-refused" };
    const direct = await fetch(`${platform.platform.addresses.admin}/admin/deposits`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${platform.platform.adminToken}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
    const refusal = (await direct.json()) as { code: number; message: string };
    assert.notEqual(refusal.code, 0);

    browser.expectFailedRequest("/admin/deposits");
    const page = await browser.page();
    await signIn(page);
    await page.getByRole("button", { name: "Deposits", exact: true }).click();
    await page.getByLabel("User id").fill(body.userId);
    await page.getByLabel("Amount (USDT)").fill(body.amount);
    await page.getByLabel("Transaction hash (idempotency key)").fill(body.txHash);
    await page.getByRole("button", { name: "Credit" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    assert.equal(await alert.textContent(), `Refused: ${refusal.message} (code ${refusal.code})`);
    await page.close();
    assertNoConsoleErrors();
  });

  it("keeps the desk readable at a phone's width", async () => {
    const page = await browser.page(phoneViewport);
    await signIn(page);
    for (const tab of ["Overview", "Markets", "Withdrawals", "Users", "Partners"]) {
      await page.getByRole("button", { name: tab, exact: true }).click();
      await page.getByRole("heading", { level: 2 }).first().waitFor();
      await assertFitsWidth(page);
    }
    // A new partner's keys are shown once, then gone from the page.
    await page.getByRole("button", { name: "Partners", exact: true }).click();
    await page.getByLabel("Name", { exact: true }).fill("console-phone-partner");
    await page.getByRole("button", { name: "Create partner" }).click();
    const secrets = page.getByTestId("partner-secrets");
    await secrets.getByText("APP Secret").waitFor();
    assert.match((await secrets.textContent()) ?? "", /shown this once/);
    await assertFitsWidth(page);
    await page.getByRole("button", { name: "I have saved them" }).click();
    await secrets.waitFor({ state: "detached" });
    await page.getByTestId("partners").getByText("console-phone-partner").waitFor();

    await page.getByRole("button", { name: "Withdrawals", exact: true }).click();
    await page.getByRole("heading", { name: "Withdrawals" }).waitFor();
    await page.getByLabel("Status").selectOption("");
    await page.getByTestId("withdrawals").locator("tbody tr").first().waitFor();
    await assertFitsWidth(page);
    await page.screenshot({
      path: new URL("console-desk-phone.png", docsDirectory).pathname,
      fullPage: true,
    });
    await page.setViewportSize(desktopViewport);
    await assertFitsWidth(page);
    await page.close();
    assertNoConsoleErrors();
  });
});

/** The JSON in a WebSocket frame, or undefined (a text PONG, say). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
