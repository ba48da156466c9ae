// `predex admin market resolve|finalize|void` against a running platform: the operator ends one
// market by resolve + finalize and voids another, from the command line; and creates an exclusive
// event with `create --exclusive`.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import type { AdminMarketDetail } from "../../src/contract/admin.js";
import { startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

const execute = promisify(execFile);
const cliEntry = join(import.meta.dirname, "../../src/cli/main.ts");

describe("predex admin market resolve|finalize|void", () => {
  let platform: TradingPlatform;
  before(async () => {
    platform = await startTradingPlatform();
  });
  after(() => platform.close());

  const cli = async (...args: string[]) => {
    const { stdout } = await execute(
      process.execPath,
      ["--import", "tsx", cliEntry, "admin", "market", ...args, "--admin-url", platform.addresses.admin],
      { env: { ...process.env, PREDEX_ADMIN_TOKEN: platform.platform.adminToken } },
    );
    return JSON.parse(stdout) as AdminMarketDetail;
  };

  it("resolves, finalizes and voids markets, printing their detail", async () => {
    const market = await platform.openMarket();
    await platform.operator.closeMarket(market.marketId);
    const resolving = await cli(
      "resolve",
      market.marketId,
      "--winner",
      `${market.outcomeId}:${market.no}`,
      "--window-seconds",
      "3600",
      "--bond",
      "2.5",
    );
    assert.deepEqual([resolving.status, resolving.challengeBondAmount], ["resolving", 2.5]);
    const settled = await cli("finalize", market.marketId);
    assert.deepEqual(
      [settled.status, settled.outcomes[0]!.options.map((option) => option.isWin)],
      ["settled", [false, true]],
    );
    const other = await platform.openMarket();
    assert.equal((await cli("void", other.marketId)).status, "void");
    await assert.rejects(
      execute(
        process.execPath,
        ["--import", "tsx", cliEntry, "admin", "market", "resolve", other.marketId, "--winner", "x"],
        {
          env: { ...process.env, PREDEX_ADMIN_TOKEN: platform.platform.adminToken },
        },
      ),
      (error: { code: number; stderr: string }) =>
        error.code === 2 && /OUTCOME_ID:OPTION_ID/.test(error.stderr),
    );
  });

  it("creates an exclusive event with --exclusive", async () => {
    const category = await platform.operator.createCategory({ name: "Elections" });
    const created = await cli(
      "create",
      "--title",
      "Who wins the mayoralty?",
      "--category-id",
      category.id,
      "--start",
      new Date(Date.now() - 60_000).toISOString(),
      "--end",
      new Date(Date.now() + 86_400_000).toISOString(),
      "--outcome",
      "Ada",
      "--outcome",
      "Brook",
      "--outcome",
      "Cyd",
      "--exclusive",
    );
    assert.deepEqual(
      [created.exclusive, created.outcomes.map((outcome) => outcome.name)],
      [true, ["Ada", "Brook", "Cyd"]],
    );
  });
});
