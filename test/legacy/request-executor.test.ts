// The legacy request executor over the real engine and SQLite stores, with the crash window made
// deterministic: the engine commits the orders, then the queue's own record fails (as if the
// process died between the two). A new executor re-runs the requests and records the orders that
// already exist; none executes twice.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { createMarketCommand } from "../../src/core/commands.js";
import { openExchangeHost } from "../../src/exchange/exchange-host.js";
import { LegacyRequestExecutor } from "../../src/legacy/request-executor.js";
import { notifyStatuses } from "../../src/store/legacy.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { createSqliteLegacyRequestStore } from "../../src/store/sqlite/legacy-requests.js";

const userId = 7;

async function setUp() {
  const db = openDatabase({ path: ":memory:" });
  const host = await openExchangeHost({
    db,
    clock: Date.now,
    logger: pino({ level: "silent" }),
    onFatal: (error) => {
      throw error;
    },
  });
  const { engine } = host;
  assert.ok((await engine.submit(createMarketCommand({ title: "Rain?" }))).ok);
  assert.ok((await engine.submit({ type: "OpenMarket", marketId: 1 })).ok);
  assert.ok(
    (await engine.submit({ type: "Deposit", userId, amount: 100n * 100_000_000n, txHash: "0x1" })).ok,
  );
  const store = createSqliteLegacyRequestStore(db);
  for (const requestId of ["r1", "r2", "r3"]) {
    await store.enqueue({
      requestId,
      merchantId: 1,
      userId,
      instruction: {
        marketId: 1,
        outcomeId: 1,
        optionId: 1,
        direction: "BUY",
        orderType: "LIMIT",
        coreOrderType: "LIMIT",
        price: "0.25",
        amount: null,
        shares: "4",
      },
      notifyContent: "{}",
      nowMs: Date.now(),
    });
  }
  const executor = (recordStore = store, errors: unknown[] = []) =>
    new LegacyRequestExecutor({
      store: recordStore,
      exchange: {
        submit: (command) => engine.submit(command),
        orderById: (id) => host.readModels.orderById(id),
      },
      describeRejection: (rejection) => ({ errorCode: 422, msg: rejection.code }),
      nowMs: Date.now,
      onError: (error) => errors.push(error),
      backoffMs: 60_000,
    });
  const openOrders = () => engine.read((state) => state.accounts.get(userId)?.openOrderCount ?? 0);
  return { db, host, engine, store, executor, openOrders };
}

describe("legacy request executor", () => {
  it("executes queued requests in order and records SUCCESS, due for notification", async () => {
    const { host, store, executor, openOrders } = await setUp();
    const running = executor();
    running.start();
    await running.idle();
    await running.stop();
    const records = await Promise.all(["r1", "r2", "r3"].map((id) => store.find(id)));
    assert.deepEqual(
      records.map((record) => record?.status),
      ["SUCCESS", "SUCCESS", "SUCCESS"],
    );
    assert.deepEqual(
      records.map((record) => JSON.parse(record!.notifyContent).order.orderId),
      [1, 2, 3],
    );
    assert.equal(records[0]!.notifyStatus, notifyStatuses.pending);
    assert.equal(records[0]!.nextNotifyAtMs, 0);
    assert.equal(await openOrders(), 3);
    await host.close();
  });

  it("re-runs requests whose result was not recorded, and finds the orders they placed", async () => {
    const { host, store, executor, openOrders } = await setUp();
    const errors: unknown[] = [];
    const crashing = executor(
      {
        ...store,
        complete: async () => {
          throw new Error("the process died before the queue recorded the results");
        },
      },
      errors,
    );
    crashing.start();
    await crashing.idle();
    await crashing.stop();
    assert.equal(errors.length, 1);
    assert.equal(await openOrders(), 3, "the engine committed the three orders");
    assert.deepEqual(
      (await store.pending(10)).map((record) => record.requestId),
      ["r1", "r2", "r3"],
    );

    const restarted = executor();
    restarted.start();
    await restarted.idle();
    await restarted.stop();
    assert.equal(await openOrders(), 3, "no order executed twice");
    const records = await Promise.all(["r1", "r2", "r3"].map((id) => store.find(id)));
    assert.deepEqual(
      records.map((record) => [record?.status, JSON.parse(record!.notifyContent).order.orderId]),
      [
        ["SUCCESS", 1],
        ["SUCCESS", 2],
        ["SUCCESS", 3],
      ],
    );
    await host.close();
  });

  it("records a refusal at execution as FAILED with the legacy message", async () => {
    const { host, engine, store, executor } = await setUp();
    assert.ok((await engine.submit({ type: "CloseMarket", marketId: 1 })).ok);
    const running = executor();
    running.start();
    await running.idle();
    await running.stop();
    const record = await store.find("r1");
    assert.equal(record?.status, "FAILED");
    assert.equal(record?.errorMsg, "MARKET_NOT_OPEN");
    assert.equal(JSON.parse(record!.notifyContent).errorCode, 422);
    await host.close();
  });
});
