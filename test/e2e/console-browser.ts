// What the web console's browser tests share: Debian's Chromium driven by playwright-core (its own
// browser download is not reachable), a fresh profile per run, the console built when it is
// missing, and a demo platform (seed + market maker) on loopback ports.
//
// Outside CI, a machine without /usr/bin/chromium skips these tests with a loud message; with
// CI=true they never skip (.ci/run installs chromium).

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, type ConsoleMessage, chromium, type Page } from "playwright-core";
import { consoleBuildDirectory } from "../../src/api/shared/console-pages.js";
import { ensureDemoPartner } from "../../src/cli/demo-partner.js";
import { type RunningDemo, runDemo } from "../../src/demo/run-demo.js";
import { type Platform, startPlatform } from "../../src/server.js";
import { testPlatformConfig } from "./harness.js";

export const chromiumPath = "/usr/bin/chromium";
export const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
export const desktopViewport = { width: 1280, height: 900 };
export const phoneViewport = { width: 390, height: 844 };

/** Why the browser tests cannot run here, or undefined when they can. Throws under CI. */
export function browserSkipReason(): string | undefined {
  if (existsSync(chromiumPath)) return undefined;
  const message = `${chromiumPath} is missing: the web console's browser tests need Debian's chromium (apt-get install -y chromium)`;
  if (process.env.CI === "true") throw new Error(`${message}; CI must install it (.ci/run)`);
  console.error(`\n!!! SKIPPING the browser tests: ${message}\n`);
  return message;
}

/** Builds web/dist with Vite when `npm install` did not (installed with --ignore-scripts, say). */
export async function ensureConsoleBuilt(): Promise<void> {
  if (
    existsSync(new URL("market.html", consoleBuildDirectory)) &&
    existsSync(new URL("desk.html", consoleBuildDirectory))
  )
    return;
  const { build } = await import("vite");
  await build({
    configFile: fileURLToPath(new URL("../../web/vite.config.ts", import.meta.url)),
    logLevel: "warn",
  });
}

export interface ConsoleBrowser {
  readonly context: BrowserContext;
  /** A new tab whose console errors and page errors are recorded (see consoleErrors). */
  page(viewport?: { width: number; height: number }): Promise<Page>;
  /**
   * Errors the pages logged, except a failed request to a URL the test expected to fail (a refused
   * admin call shows up as "Failed to load resource" in Chromium's console).
   */
  consoleErrors(): string[];
  expectFailedRequest(urlPart: string): void;
  close(): Promise<void>;
}

export async function launchConsoleBrowser(): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "predex-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport: desktopViewport,
  });
  const errors: { text: string; url: string }[] = [];
  const expectedFailures: string[] = [];
  const record = (message: ConsoleMessage) => {
    if (message.type() === "error") errors.push({ text: message.text(), url: message.location().url });
  };
  return {
    context,
    async page(viewport = desktopViewport) {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      page.on("console", record);
      page.on("pageerror", (error) => errors.push({ text: `page error: ${error.message}`, url: "" }));
      return page;
    },
    consoleErrors() {
      return errors
        .filter(
          (error) =>
            !(
              error.text.startsWith("Failed to load resource") &&
              expectedFailures.some((part) => error.url.includes(part))
            ),
        )
        .map((error) => `${error.text} ${error.url}`.trim());
    },
    expectFailedRequest(urlPart) {
      expectedFailures.push(urlPart);
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface DemoConsolePlatform {
  readonly platform: Platform;
  readonly demo: RunningDemo;
  readonly dataDir: string;
  stop(): Promise<void>;
}

/** The platform of `npm start` on loopback ports: demo partner, seed, and the market maker. */
export async function startDemoConsolePlatform(botTickMs: number): Promise<DemoConsolePlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-console-"));
  const platform = await startPlatform(testPlatformConfig(dataDir));
  try {
    const credentials = await ensureDemoPartner(platform, dataDir);
    if (credentials === undefined) throw new Error("the demo partner was not created");
    const demo = await runDemo(
      {
        adminUrl: platform.addresses.admin,
        adminToken: platform.adminToken,
        gatewayUrl: platform.addresses.gateway,
      },
      credentials,
      { log: { info: () => {}, warn: () => {} }, bot: true, botTickMs, crossChance: 0.5 },
    );
    return {
      platform,
      demo,
      dataDir,
      stop: async () => {
        await demo.stop();
        await platform.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
