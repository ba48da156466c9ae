// The console's page and assets as a listener serves them: the built HTML at `/` with its security
// headers, content-hashed assets cached for good, and, when the build is missing, a 503 page that
// says how to build it instead of a crash. The admin guard lets exactly these paths through.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import Fastify from "fastify";
import { isConsoleRequest, registerConsolePage } from "../../../src/api/shared/console-pages.js";

const temporary = mkdtempSync(join(tmpdir(), "predex-console-pages-"));
after(() => rmSync(temporary, { recursive: true, force: true }));

describe("the console's page on a listener", () => {
  it("answers / with a clear 503 page when web/dist was never built", async () => {
    const app = Fastify({ logger: false });
    await registerConsolePage(app, "desk", pathToFileURL(join(temporary, "missing/")));
    const response = await app.inject({ method: "GET", url: "/" });
    assert.equal(response.statusCode, 503);
    assert.match(response.headers["content-type"] as string, /^text\/html/);
    assert.match(response.body, /The web console is not built/);
    assert.match(response.body, /npm run build:web/);
    const asset = await app.inject({ method: "GET", url: "/console/assets/desk-abc.js" });
    assert.equal(asset.statusCode, 404);
    await app.close();
  });

  it("serves the built page with its headers and the hashed assets with a long cache", async () => {
    const build = join(temporary, "dist");
    mkdirSync(join(build, "assets"), { recursive: true });
    writeFileSync(join(build, "market.html"), "<!doctype html><title>market</title>");
    writeFileSync(join(build, "assets", "market-abc123.js"), "console.log('market')");
    const app = Fastify({ logger: false });
    await registerConsolePage(app, "market", pathToFileURL(`${build}/`));
    const page = await app.inject({ method: "GET", url: "/" });
    assert.equal(page.statusCode, 200);
    assert.equal(page.body, "<!doctype html><title>market</title>");
    assert.equal(page.headers["cache-control"], "no-cache");
    assert.match(page.headers["content-security-policy"] as string, /script-src 'self'/);
    const asset = await app.inject({ method: "GET", url: "/console/assets/market-abc123.js" });
    assert.equal(asset.statusCode, 200);
    assert.match(asset.headers["cache-control"] as string, /immutable/);
    const outside = await app.inject({ method: "GET", url: "/console/assets/../market.html" });
    assert.notEqual(outside.body, "<!doctype html><title>market</title>");
    await app.close();
  });

  it("answers a client that does not ask for HTML with the health check, when told to", async () => {
    const build = join(temporary, "dist-health");
    mkdirSync(join(build, "assets"), { recursive: true });
    writeFileSync(join(build, "market.html"), "<!doctype html><title>market</title>");
    const app = Fastify({ logger: false });
    await registerConsolePage(app, "market", pathToFileURL(`${build}/`), { healthCheckForApiClients: true });
    for (const accept of [undefined, "*/*", "application/json"]) {
      const answer = await app.inject({ method: "GET", url: "/", headers: accept ? { accept } : {} });
      assert.equal(answer.statusCode, 200);
      assert.deepEqual([answer.json(), answer.headers.vary], ["OK", "accept"], String(accept));
    }
    const page = await app.inject({ method: "GET", url: "/", headers: { accept: "text/html,*/*;q=0.8" } });
    assert.equal(page.body, "<!doctype html><title>market</title>");
    await app.close();
  });

  it("lets only the page and its assets past the admin token", () => {
    for (const url of ["/", "/?x=1", "/console/assets/desk-1.js"])
      assert.equal(isConsoleRequest(url), true, url);
    for (const url of ["/admin/partners", "/metrics", "/console", "/consoleX/assets/a.js", "//admin"])
      assert.equal(isConsoleRequest(url), false, url);
  });
});
