// The compiled build (issue #27, defect 11): `npm run build` compiles src/ into dist/, and `predex`
// (bin/predex.js) runs it when it is fresh instead of transpiling the sources through tsx at every
// start. Checked here: the freshness rule (a source edited after the build makes it stale, so an
// edited checkout never runs old code), and a production `predex serve` from the build: it says
// nothing about falling back, finds every route file, the web console's build and the snapshot
// worker's module from dist/, and a partner's user works through the SDK.
//
// The build itself comes from `npm ci` (prepare) in CI; a missing or stale one is rebuilt here.

import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import {
  buildDirectoryName,
  buildStampName,
  buildState,
  compiledEntry,
  projectRoot,
} from "../../bin/build-state.js";
import type * as ExchangeModule from "../../src/core/exchange.js";
import type * as SnapshotWorkerModule from "../../src/engine/snapshot-worker.js";
import type * as ExchangeHostModule from "../../src/exchange/exchange-host.js";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { type PartnerCredentials, testMasterKeyHex, testPlatformEnv } from "../e2e/harness.js";

const run = promisify(execFile);

describe("the build's freshness", () => {
  const root = mkdtempSync(join(tmpdir(), "predex-build-state-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const at = (path: string, seconds: number) => {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "");
    utimesSync(path, seconds, seconds);
  };

  it("is missing without a stamp or an entry point, fresh when every source is older, stale when one is newer", () => {
    at(join(root, "src", "cli", "main.ts"), 1_000);
    at(join(root, "src", "api", "routes", "x.ts"), 1_000);
    assert.equal(buildState(root).kind, "missing");
    at(compiledEntry(root), 2_000);
    assert.equal(buildState(root).kind, "missing");
    at(join(root, buildDirectoryName, buildStampName), 2_000);
    assert.equal(buildState(root).kind, "fresh");
    // The devnet is not built: editing it leaves the build fresh.
    at(join(root, "src", "chain", "devnet", "devnet.ts"), 3_000);
    assert.equal(buildState(root).kind, "fresh");
    at(join(root, "src", "api", "routes", "x.ts"), 3_000);
    const stale = buildState(root);
    assert.equal(stale.kind, "stale");
    assert.match(stale.reason, /src\/api\/routes\/x\.ts changed after the compiled build/);
  });

  it("is stale when a source was deleted after the build: its old module would still be loaded", () => {
    const deleted = mkdtempSync(join(tmpdir(), "predex-build-state-"));
    try {
      at(join(deleted, "src", "cli", "main.ts"), 1_000);
      at(join(deleted, "src", "api", "routes", "gone.ts"), 1_000);
      at(compiledEntry(deleted), 2_000);
      at(join(deleted, buildDirectoryName, "api", "routes", "gone.js"), 2_000);
      at(join(deleted, buildDirectoryName, "api", "routes", "gone.js.map"), 2_000);
      at(join(deleted, buildDirectoryName, buildStampName), 2_000);
      assert.equal(buildState(deleted).kind, "fresh");
      // A route file removed (a pull, a checkout): every routes/ file found is loaded at start.
      rmSync(join(deleted, "src", "api", "routes", "gone.ts"));
      const stale = buildState(deleted);
      assert.equal(stale.kind, "stale");
      assert.match(stale.reason, /api\/routes\/gone\.js has no source/);
    } finally {
      rmSync(deleted, { recursive: true, force: true });
    }
  });
});

describe("predex from the compiled build", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-compiled-"));
  const adminToken = "compiled-build-test-admin-token-0123456789";
  let child: ReturnType<typeof spawn> | undefined;
  let stderr = "";
  const addresses: Record<string, string> = {};

  before(
    async () => {
      if (buildState().kind !== "fresh") {
        // Not made by `npm ci` here (a checkout edited since, or node_modules shared with another).
        await run(process.execPath, ["--import", "tsx", join(projectRoot, "tools", "build.ts")], {
          cwd: projectRoot,
        });
      }
      assert.equal(buildState().kind, "fresh");
      child = spawn(process.execPath, [join(projectRoot, "bin", "predex.js"), "serve"], {
        env: {
          ...process.env,
          ...testPlatformEnv(dataDir),
          PREDEX_MASTER_KEY: testMasterKeyHex,
          PREDEX_ADMIN_TOKEN: adminToken,
          PREDEX_DATABASE_URL: "",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no start within 120 s; stderr: ${stderr}`)),
          120_000,
        );
        child!.on("exit", (code) => reject(new Error(`predex exited with ${code}; stderr: ${stderr}`)));
        createInterface({ input: child!.stdout! }).on("line", (line) => {
          const listener = /^\s+(gateway|public|legacy|admin)\s.*?(https?:\/\/\S+)/.exec(line);
          if (listener !== null) addresses[listener[1]!] = listener[2]!;
          if (
            addresses.admin !== undefined &&
            addresses.gateway !== undefined &&
            addresses.public !== undefined
          ) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
    },
    { timeout: 300_000 },
  );

  after(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.on("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs without falling back to the sources", () => {
    assert.doesNotMatch(stderr, /running the TypeScript sources/);
  });

  it("is ready, serves the console's build and every surface's routes; a user works through the SDK", async () => {
    assert.equal((await fetch(`${addresses.admin}/readyz`)).status, 200);
    // As a browser asks for it: a client that does not ask for HTML gets Polymarket's "OK" there.
    const page = await (await fetch(`${addresses.public}/`, { headers: { accept: "text/html" } })).text();
    assert.match(page, /\/console\/assets\/market-[\w-]+\.js/);
    assert.doesNotMatch(page, /not built/);
    for (const surface of ["gateway", "public", "admin"]) {
      assert.equal((await fetch(`${addresses[surface]}/docs/json`)).status, 200, `${surface} /docs/json`);
    }
    const operator = new PredexAdminClient({ baseUrl: addresses.admin!, token: adminToken });
    const partner = (await operator.createPartner()) as unknown as PartnerCredentials;
    const client = new PredexClient({ baseUrl: addresses.gateway!, credentials: partner });
    const user = await client.register({
      userEmail: "compiled@example.com",
      merchantId: partner.merchantId,
      marchantUserId: "compiled",
    });
    assert.equal((await client.getProfile()).userId, user.userId);
    assert.match((await client.getDepositAddress()).address, /^0x[0-9a-fA-F]{40}$/);
  });

  it("encodes snapshots on the worker from the compiled files", async () => {
    const compiled = (path: string) => pathToFileURL(join(projectRoot, buildDirectoryName, path)).href;
    const { SnapshotWorker } = (await import(
      compiled("engine/snapshot-worker.js")
    )) as typeof SnapshotWorkerModule;
    const { exchangeSnapshotWorker } = (await import(
      compiled("exchange/exchange-host.js")
    )) as typeof ExchangeHostModule;
    assert.ok(exchangeSnapshotWorker.moduleUrl.startsWith(compiled("")));
    const { exchangeDecider, exchangeStateCodec } = (await import(
      compiled("core/exchange.js")
    )) as typeof ExchangeModule;
    const worker = new SnapshotWorker(exchangeSnapshotWorker, {
      encodedState: exchangeStateCodec.encode(exchangeDecider.initialState()),
      sequence: 0n,
      nowMs: 1_800_000_000_000,
    });
    try {
      const snapshot = await worker.snapshot(0n);
      assert.equal(snapshot.sequence, 0n);
      assert.match(snapshot.hash, /^[0-9a-f]{64}$/);
    } finally {
      await worker.close();
    }
  });
});
