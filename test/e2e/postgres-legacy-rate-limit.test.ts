// The legacy 50 requests/second per merchant across two legacy nodes sharing PostgreSQL: two real
// legacy listeners (the platform's own app builder, each with its own pool on one database, as two
// API processes would have), driven over HTTP with one merchant's tokens. Together they let
// exactly 50 through in one window; without the shared store the same two nodes let 70 through.

import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { PlatformDeps } from "../../src/api/deps.js";
import { buildLegacyApp } from "../../src/api/legacy/app.js";
import type { TypeBoxApp } from "../../src/api/shared/typebox-app.js";
import { legacyPaths } from "../../src/contract/legacy/paths.js";
import { openPostgresRateLimitStores } from "../../src/store/postgres/rate-limit-store.js";
import { type LegacyPlatform, startLegacyPlatform } from "../legacy/fixtures.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresDatabases } from "../support/postgres-databases.js";
import { startTradingPlatform } from "./trading-fixtures.js";

const skipReason = postgresSkipReason();

/** Starts a legacy listener on a free loopback port; returns its base URL. */
async function startNode(deps: PlatformDeps, apps: TypeBoxApp[]): Promise<string> {
  const app = await buildLegacyApp(deps);
  apps.push(app);
  await app.listen({ host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

if (skipReason !== undefined) {
  it("legacy rate limit across nodes: postgres", { skip: skipReason }, () => {});
} else {
  const databases = postgresDatabases("ratelimit");
  const apps: TypeBoxApp[] = [];
  let platform: LegacyPlatform;
  /** While set, every node's clock stands still here, so all requests fall in one window. */
  let frozenNowMs: number | undefined;
  before(async () => {
    platform = await startLegacyPlatform(
      startTradingPlatform({ platform: { nowMs: () => frozenNowMs ?? Date.now() } }),
    );
  });
  after(async () => {
    for (const app of apps) await app.close();
    await platform.close();
    await databases.close();
  });

  /** 70 requests of one merchant's two users, alternating between the two nodes. */
  const burst = async (nodes: readonly string[]) => {
    const merchant = await platform.createMerchant();
    const tokens = await Promise.all(
      [0, 1].map(async () => (await platform.legacyClient(merchant).authorize()).token),
    );
    // A second after now: a window the authorize calls did not use.
    frozenNowMs = Date.now() + 1_000;
    try {
      return await Promise.all(
        Array.from({ length: 70 }, async (_unused, index) => {
          const response = await fetch(`${nodes[index % 2]}${legacyPaths.requestResult("x")}`, {
            headers: { authorization: `Bearer ${tokens[index % 2]}` },
          });
          return { status: response.status, headers: response.headers, json: await response.json() };
        }),
      );
    } finally {
      frozenNowMs = undefined;
    }
  };

  describe("legacy rate limit on two nodes", () => {
    it("lets exactly 50 requests of one merchant through in one second across both nodes", async () => {
      const url = await databases.fresh();
      const nodes = [
        await startNode(
          {
            ...platform.platform.deps,
            sharedRateLimitStores: await openPostgresRateLimitStores(databases.pool(url)),
          },
          apps,
        ),
        await startNode(
          {
            ...platform.platform.deps,
            sharedRateLimitStores: await openPostgresRateLimitStores(databases.pool(url)),
          },
          apps,
        ),
      ];
      const responses = await burst(nodes);
      const limited = responses.filter((response) => response.status === 429);
      assert.equal(responses.filter((response) => response.status === 404).length, 50);
      assert.equal(limited.length, 20);
      assert.deepEqual(limited[0]!.json, {
        code: 429,
        msg: "Too many requests",
        data: { retryAfter: 1, limit: 50, window: "1s" },
      });
      assert.equal(limited[0]!.headers.get("retry-after"), "1");
      const passedPerNode = [0, 1].map(
        (node) => responses.filter((response, index) => index % 2 === node && response.status === 404).length,
      );
      assert.ok(
        passedPerNode.every((passed) => passed > 0 && passed < 50),
        `per node: ${passedPerNode}`,
      );
    });

    it("without the shared store, two nodes let 70 through (each counts alone)", async () => {
      const { sharedRateLimitStores: _none, ...deps } = platform.platform.deps;
      const nodes = [await startNode(deps, apps), await startNode(deps, apps)];
      const responses = await burst(nodes);
      assert.equal(responses.filter((response) => response.status === 404).length, 70);
    });
  });
}
