// The operator's market and deposit API (DESIGN §5) through a real admin listener: the created
// market's detail has every field of spec 000 with its JSON type; deposits are idempotent on txHash.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { PredexApiError } from "../../src/sdk/errors.js";
import { assertShape, detailShape } from "./catalogue-contract.js";
import { isoAt, startTradingPlatform, type TradingPlatform, usdtOf } from "./trading-fixtures.js";

describe("admin markets and deposits", () => {
  let platform: TradingPlatform;
  before(async () => {
    platform = await startTradingPlatform();
  });
  after(() => platform.close());

  it("creates a draft orderbook market whose detail has exactly the spec's fields and types, and exclusive", async () => {
    const start = Date.now() - 60_000;
    const detail = await platform.operator.createMarket({
      title: "Who wins the final?",
      description: "The 2026 final",
      rules: "Resolves on the official result",
      categoryId: Number((await platform.operator.createCategory({ name: "Football" })).id),
      tags: "football,final",
      makerFee: 10,
      takerFee: 20,
      tickSize: "0.001",
      startTime: isoAt(start),
      endTime: isoAt(start + 86_400_000),
      outcomes: [
        { name: "Team A", title: "Team A wins", options: [{ title: "Yes" }, { title: "No" }] },
        { name: "Team B", options: [{ title: "Yes" }, { title: "No" }] },
      ],
    });
    // The contract's detail shape; a created market already has its hotScore (the contract allows null).
    // The operator's detail adds `exclusive` (DESIGN §10).
    assertShape(detail, { ...detailShape, hotScore: "number", exclusive: "boolean" }, "detail");
    assert.deepEqual(
      [
        detail.status,
        detail.isOnline,
        detail.category,
        detail.tags,
        detail.makerFee,
        detail.takerFee,
        detail.modelType,
      ],
      ["draft", false, "Football", "football,final", 10, 20, "orderbook"],
    );
    assert.deepEqual(
      [detail.description, detail.rules, detail.startTime],
      ["The 2026 final", "Resolves on the official result", isoAt(start)],
    );
    assert.deepEqual(detail.creator, {
      creatorId: "0",
      name: "predex",
      profileImage: detail.creator.profileImage,
      creatorAddress: null,
    });
    assert.deepEqual(
      detail.outcomes.map((outcome) => [
        outcome.name,
        outcome.title,
        outcome.options.map((option) => [option.title, option.optionIndex, typeof option.optionId]),
      ]),
      [
        [
          "Team A",
          "Team A wins",
          [
            ["Yes", 0, "string"],
            ["No", 1, "string"],
          ],
        ],
        [
          "Team B",
          "Team B",
          [
            ["Yes", 0, "string"],
            ["No", 1, "string"],
          ],
        ],
      ],
    );
    const option = detail.outcomes[0]!.options[0]!;
    assert.deepEqual(
      [
        typeof option.chance,
        typeof option.price,
        typeof option.priceBuy,
        typeof option.priceSell,
        typeof option.isWinFirst,
        option.isWin,
      ],
      ["number", "string", "number", "number", "string", null],
    );

    const opened = await platform.operator.openMarket(detail.marketId);
    assert.deepEqual([opened.status, opened.isOnline], ["open", true]);
    const { client } = await platform.fundedUser("0");
    // The partner sees the operator's detail but `exclusive`, with its own view counted (clicks, hotScore).
    const viewed = await client.getMarketDetail(detail.marketId);
    const { exclusive, ...openedSpecFields } = opened;
    assert.equal(exclusive, false);
    assert.deepEqual({ ...viewed, clicks: opened.clicks, hotScore: opened.hotScore }, openedSpecFields);
    assert.equal(viewed.clicks, opened.clicks + 1);
    await assert.rejects(platform.operator.openMarket(detail.marketId), (error: unknown) => {
      assert.ok(error instanceof PredexApiError);
      assert.deepEqual([error.status, error.code], [400, 1001]);
      return true;
    });
  });

  it("refuses AMM terms the core does not accept, and bad times", async () => {
    const base = {
      title: "x",
      categoryId: "1",
      startTime: isoAt(Date.now()),
      endTime: isoAt(Date.now() + 3_600_000),
      outcomes: [{ name: "x", options: [{ title: "Yes" }, { title: "No" }] }],
    };
    // AMM and parimutuel markets are created (test/e2e/pool-markets.test.ts); bad pool terms are not.
    await assert.rejects(
      platform.operator.createMarket({ ...base, modelType: "AMM", liquidity: 50 }),
      (error: unknown) => {
        assert.ok(error instanceof PredexApiError);
        assert.deepEqual(
          [error.status, error.code, error.message],
          [400, 1001, "bad request: Liquidity cannot be less than 100"],
        );
        return true;
      },
    );
    await assert.rejects(
      platform.operator.createMarket({ ...base, endTime: base.startTime }),
      /endTime must be after startTime/,
    );
    await assert.rejects(
      platform.operator.createMarket({ ...base, startTime: "tomorrow" }),
      /startTime must be an ISO 8601 time/,
    );
    await assert.rejects(platform.operator.createMarket({ ...base, creatorId: "99999" }), /User not found/);
    await assert.rejects(platform.operator.openMarket("99999"), /Market not found/);
  });

  it("credits a deposit once per txHash; the same deposit again answers the first", async () => {
    const { client, userId } = await platform.fundedUser("0");
    const first = await platform.operator.deposit({
      userId: Number(userId),
      amount: "12.5",
      txHash: "0xabc",
    });
    const again = await platform.operator.deposit({ userId, amount: 12.5, txHash: "0xabc" });
    assert.deepEqual(again, first);
    assert.deepEqual([first.userId, first.amount, first.txHash], [userId, "12.5", "0xabc"]);
    assert.deepEqual(await usdtOf(client), { available: "12.5", frozen: "0", total: "12.5" });
    await assert.rejects(
      platform.operator.deposit({ userId, amount: "1", txHash: "0xabc" }),
      /already credited/,
    );
    await assert.rejects(
      platform.operator.deposit({ userId, amount: "0.123456789", txHash: "0xdef" }),
      /more than 8 decimal places/,
    );
    await assert.rejects(
      platform.operator.deposit({ userId: "99999", amount: "1", txHash: "0xdef" }),
      /User not found/,
    );
    assert.deepEqual(await usdtOf(client), { available: "12.5", frozen: "0", total: "12.5" });
  });

  it("the CLI creates, opens and closes a market and credits a deposit", { timeout: 60_000 }, async () => {
    const run = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          "--import",
          "tsx",
          new URL("../../src/cli/main.ts", import.meta.url).pathname,
          "admin",
          ...args,
          "--admin-url",
          platform.addresses.admin,
        ],
        { env: { ...process.env, PREDEX_ADMIN_TOKEN: platform.platform.adminToken } },
      );
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const category = await run("category", "create", "--name", "CLI", "--name-zh-CN", "命令行");
    assert.deepEqual([category.name, category.names, category.level], ["CLI", { "zh-CN": "命令行" }, 1]);
    const created = await run(
      "market",
      "create",
      "--title",
      "CLI market",
      "--category-id",
      String(category.id),
      "--start",
      isoAt(Date.now() - 60_000),
      "--end",
      isoAt(Date.now() + 3_600_000),
      "--outcome",
      "First",
      "--taker-fee",
      "25",
    );
    assert.deepEqual([created.title, created.status, created.takerFee], ["CLI market", "draft", 25]);
    assert.equal((await run("market", "open", String(created.marketId))).status, "open");
    assert.equal((await run("market", "close", String(created.marketId))).status, "closed");
    const { userId } = await platform.fundedUser("0");
    const deposit = await run("deposit", "--user-id", userId, "--amount", "3.25", "--tx-hash", "0xcli");
    assert.deepEqual([deposit.userId, deposit.amount], [userId, "3.25"]);
  });
});
