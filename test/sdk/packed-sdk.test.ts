// The SDK ships without the server: tools/pack-sdk.ts packs src/sdk and src/contract as a package of
// their own, the tarball is installed into an empty project (laid out as npm lays it out, with the
// two dependencies taken from this repository's node_modules, so no registry is needed), and a
// program there, which knows only the package's name, signs requests through it against a real
// platform.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { packSdk, sdkPackageName } from "../../tools/pack-sdk.js";
import { startTestPlatform, type TestPlatform } from "../e2e/harness.js";

const run = promisify(execFile);
const repositoryModules = resolve(import.meta.dirname, "../../node_modules");

// The partner's program: plain JavaScript that imports the SDK by its package name only.
const partnerProgram = `
import { PredexClient, signRequest } from "${sdkPackageName}";
import { signAuthorizeRequest, verifyWebhook } from "${sdkPackageName}/legacy";
import { MarketSocket } from "${sdkPackageName}/ws";

const { baseUrl, credentials, merchantId } = JSON.parse(process.argv[2]);
const client = new PredexClient({ baseUrl, credentials, retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 } });
const user = await client.register({ merchantId, marchantUserId: "packed-sdk-user", userEmail: "packed@example.com" });
const assets = await client.getAssets();
const profile = await client.getProfile();
console.log(JSON.stringify({
  userId: user.userId,
  profileUserId: profile.userId,
  assets,
  exports: [typeof signRequest, typeof signAuthorizeRequest, typeof verifyWebhook, typeof MarketSocket],
}));
`;

describe("the SDK packed as a package of its own", () => {
  let scratch: string;
  let tarball: string;
  let project: string;
  let platform: TestPlatform;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), "predex-packed-sdk-"));
    tarball = packSdk(join(scratch, "tarballs"));
    // Install: the tarball's `package/` becomes node_modules/@predex/sdk, its dependencies resolve
    // to this repository's copies of typebox and ws.
    project = join(scratch, "partner-project");
    const installed = join(project, "node_modules", sdkPackageName);
    mkdirSync(installed, { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    for (const dependency of ["typebox", "ws"]) {
      symlinkSync(join(repositoryModules, dependency), join(project, "node_modules", dependency), "dir");
    }
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "partner", type: "module", private: true }),
    );
    writeFileSync(join(project, "main.js"), partnerProgram);
    platform = await startTestPlatform();
  });

  after(async () => {
    await platform?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("holds the SDK and the contract and nothing else of the server", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball]);
    const files = stdout.trim().split("\n");
    assert.ok(files.includes("package/package.json"));
    assert.ok(files.includes("package/dist/sdk/index.js"));
    assert.ok(files.includes("package/dist/sdk/index.d.ts"));
    assert.ok(files.includes("package/dist/contract/signing/string-to-sign.js"));
    const foreign = files.filter(
      (file) => file !== "package/package.json" && !/^package\/dist\/(sdk|contract)\//.test(file),
    );
    assert.deepEqual(foreign, []);
  });

  it("signs a partner's requests against a real platform", async () => {
    const partner = await platform.createPartner();
    const { merchantId, appKey, appSecret, apiKey } = partner;
    const argument = JSON.stringify({
      baseUrl: platform.addresses.gateway,
      credentials: { appKey, appSecret, apiKey },
      merchantId,
    });
    const { stdout } = await run(process.execPath, ["main.js", argument], { cwd: project });
    const result = JSON.parse(stdout) as {
      userId: string;
      profileUserId: string;
      assets: { coinId: string; symbol: string; available: string }[];
      exports: string[];
    };
    assert.match(result.userId, /^[0-9]+$/);
    assert.equal(result.profileUserId, result.userId);
    assert.deepEqual(
      result.assets.map((asset) => [asset.coinId, asset.symbol, asset.available]),
      [["2", "USDT", "0"]],
    );
    assert.deepEqual(result.exports, ["function", "function", "function", "function"]);
  });
});
