// `npm start` as a newcomer runs it: `predex serve --demo` in a child process on free ports, the
// printed addresses and credentials, the 0600 files, a signed request with the demo partner, the
// admin CLI against the running server, and a clean stop on SIGTERM.

import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { PredexClient } from "../../src/sdk/client.js";
import { waitUntil } from "../support/wait-until.js";
import { testDatabaseEnv, testPlatformEnv } from "./harness.js";

const run = promisify(execFile);
const cliEntry = join(import.meta.dirname, "../../src/cli/main.ts");

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly addresses: Record<string, string>;
}

async function startServe(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(process.execPath, ["--import", "tsx", cliEntry, "serve", "--demo"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitUntil(
    () => {
      if (child.exitCode !== null) throw new Error(`serve exited:\n${output}`);
      // The banner's last demo line, whole: stdout arrives in chunks, so "Demo partner created"
      // can be read before the secrets printed under it.
      return /apiKey\s+\S+\n|Demo partner credentials: \S+\n|credentials file is gone/.test(output);
    },
    { what: () => `serve to start:\n${output}`, timeoutMs: 20_000, intervalMs: 50 },
  );
  const addresses: Record<string, string> = {};
  for (const match of output.matchAll(/^\s+(gateway|public|legacy|admin)\s.*?(https?:\/\/\S+)$/gm)) {
    addresses[match[1]!] = match[2]!;
  }
  return { child, output: () => output, addresses };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  return exited;
}

describe("predex serve --demo", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-cli-"));
  const env = {
    ...process.env,
    ...testPlatformEnv(dataDir),
    // The dir's database in the PostgreSQL pass (the same one after the restart).
    ...testDatabaseEnv(dataDir),
    PREDEX_LOG_LEVEL: "warn",
    PREDEX_ADMIN_TOKEN: "",
  };
  let started: Started;

  before(async () => {
    started = await startServe(env);
  });
  after(async () => {
    if (started !== undefined) await stop(started.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints the four bound addresses, the admin token and the demo credentials", () => {
    assert.deepEqual(Object.keys(started.addresses).sort(), ["admin", "gateway", "legacy", "public"]);
    const adminToken = readFileSync(join(dataDir, "admin-token"), "utf8").trim();
    assert.ok(started.output().includes(adminToken));
    assert.match(started.output(), /appSecret\s+\S+/);
  });

  it("writes data/credentials.json with mode 0600, and its credentials sign requests", async () => {
    const path = join(dataDir, "credentials.json");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const credentials = JSON.parse(readFileSync(path, "utf8")) as {
      merchantId: string;
      appKey: string;
      appSecret: string;
      apiKey: string;
    };
    const client = new PredexClient({ baseUrl: started.addresses.gateway!, credentials });
    const user = await client.register({
      userEmail: "demo@example.com",
      merchantId: credentials.merchantId,
      marchantUserId: "demo-1",
    });
    assert.equal((await client.getProfile()).userId, user.userId);
  });

  it("creates partners with `predex admin partner create` over the admin API", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--import",
        "tsx",
        cliEntry,
        "admin",
        "partner",
        "create",
        "--name",
        "cli-made",
        "--admin-url",
        started.addresses.admin!,
      ],
      { env },
    );
    const created = JSON.parse(stdout) as Record<string, string>;
    assert.deepEqual(Object.keys(created).sort(), [
      "apiKey",
      "appKey",
      "appSecret",
      "merchantId",
      "webhookSecret",
    ]);
  });

  it("checks a partner's signing with `predex doctor`", async () => {
    const doctor = (credentialsFile: string) =>
      run(
        process.execPath,
        [
          "--import",
          "tsx",
          cliEntry,
          "doctor",
          "--credentials",
          credentialsFile,
          "--url",
          started.addresses.gateway!,
        ],
        { env },
      ).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      );
    const good = await doctor(join(dataDir, "credentials.json"));
    assert.equal(good.code, 0, good.stdout);
    assert.match(good.stdout, /^OK: /m);

    const badFile = join(dataDir, "bad-credentials.json");
    const credentials = JSON.parse(readFileSync(join(dataDir, "credentials.json"), "utf8")) as Record<
      string,
      string
    >;
    writeFileSync(badFile, JSON.stringify({ ...credentials, appSecret: "not-the-secret" }));
    const bad = await doctor(badFile);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /Invalid Signature \(reason: signature\)/);
    assert.match(bad.stdout, /check appSecret/);
  });

  it("stops cleanly on SIGTERM, and does not create the demo partner twice", async () => {
    assert.equal(await stop(started.child), 0);
    assert.match(started.output(), /predex stopped/);
    const credentialsBefore = readFileSync(join(dataDir, "credentials.json"), "utf8");
    started = await startServe(env);
    assert.match(started.output(), /Demo partner credentials: /);
    assert.doesNotMatch(started.output(), /Admin token \(created now/);
    assert.equal(readFileSync(join(dataDir, "credentials.json"), "utf8"), credentialsBefore);
  });
});

describe("predex serve --demo, stopped while it starts", () => {
  it("stops cleanly on a SIGTERM sent as soon as the addresses are printed (the demo still starting)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "predex-cli-early-stop-"));
    try {
      const child = spawn(process.execPath, ["--import", "tsx", cliEntry, "serve", "--demo"], {
        env: {
          ...process.env,
          ...testPlatformEnv(dataDir),
          ...testDatabaseEnv(dataDir),
          PREDEX_LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once("exit", (code, signal) => resolve({ code, signal })),
      );
      child.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stdout?.on("data", (chunk: Buffer) => {
        const first = !/gateway/.test(output);
        output += chunk.toString();
        // Before the demo partner, market and market maker exist: they are made after the banner.
        if (first && /gateway/.test(output)) child.kill("SIGTERM");
      });
      const { code, signal } = await exited;
      assert.deepEqual({ code, signal }, { code: 0, signal: null }, output);
      assert.match(output, /predex stopped/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
