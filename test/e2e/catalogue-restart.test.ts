// The catalogue across a restart of the platform on the same data dir: categories, the search
// index and the clicks counted before the stop (written at shutdown) are all still there.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { type Platform, startPlatform } from "../../src/server.js";
import { testPlatformConfig } from "./harness.js";
import { isoAt } from "./trading-fixtures.js";

const dataDir = mkdtempSync(join(tmpdir(), "predex-catalogue-restart-"));
const config = () => testPlatformConfig(dataDir);

describe("catalogue across a restart", () => {
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("keeps categories, the search index and every counted click", { timeout: 60_000 }, async () => {
    let platform: Platform = await startPlatform(config());
    const operator = () =>
      new PredexAdminClient({ baseUrl: platform.addresses.admin, token: platform.adminToken });
    const partner = await operator().createPartner();
    const client = () => new PredexClient({ baseUrl: platform.addresses.gateway, credentials: partner });
    let marketId: string;
    try {
      const category = await operator().createCategory({ name: "Science", names: { "zh-CN": "科学" } });
      const created = await operator().createMarket({
        title: "Fusion power plant online before 2030?",
        categoryId: category.id,
        startTime: isoAt(Date.now() - 60_000),
        endTime: isoAt(Date.now() + 86_400_000),
        outcomes: [{ name: "Fusion", options: [{ title: "Yes" }, { title: "No" }] }],
      });
      marketId = created.marketId;
      await operator().openMarket(marketId);
      for (let view = 0; view < 3; view += 1) await client().getMarketDetail(marketId);
    } finally {
      await platform.close();
    }

    platform = await startPlatform(config());
    try {
      const detail = await client().getMarketDetail(marketId);
      assert.deepEqual([detail.clicks, detail.category], [4, "Science"]);
      assert.ok((detail.hotScore ?? 0) > 3.9);
      const found = await client().search({ keyword: "fusion" });
      assert.deepEqual(
        found.records.map((record) => record.marketId),
        [marketId],
      );
      const tree = await client().getCategoryTree({ language: "zh-CN" });
      assert.deepEqual(
        tree.map((node) => node.nameDisplay),
        ["科学"],
      );
    } finally {
      await platform.close();
    }
  });
});
