// The dead-man's switch across a leader takeover on PostgreSQL. Engine nodes in processes of their
// own (`predex serve --role engine`) and an API node's forwarding engine: a user quotes (a group of
// orders forwarded to the leader's command port as one request), arms its switch, and the leader is
// SIGKILLed at once. The standby takes over before the deadline and, with no heartbeat coming, its
// scheduler cancels every open order of the user on time: at the deadline, not before, as one
// journaled TripDeadMansSwitch. The deadline lived in the journal, not in the dead process.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { deriveCommandKey } from "../../src/cluster/command-auth.js";
import { ForwardingEngine } from "../../src/cluster/forwarding-engine.js";
import {
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  exchangeDecider,
  exchangeStateCodec,
  limitOrderCommand,
} from "../../src/core/exchange.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { openPostgresPool } from "../../src/store/postgres/database.js";
import { openPostgresEngineCluster } from "../../src/store/postgres/engine-cluster.js";
import { testMasterKeyHex } from "../e2e/harness.js";
import { CliTopology, leadingLine } from "../support/cli-deployment.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const leaseMs = 2_000;
const timeoutMs = 12_000;
/** Loose, as a busy machine may delay a tick: the point is "at the deadline", not "much later". */
const lateMsMax = 5_000;

describe("the dead-man's switch across a takeover", { skip: skipReason }, () => {
  let topology: CliTopology;

  before(async () => {
    topology = await CliTopology.start("switch-takeover");
  });
  after(() => topology?.stop());

  it("a standby that takes over cancels the user's orders on time", { timeout: 120_000 }, async () => {
    const env = await topology.env("switch", "switch-takeover-admin-token-0123456789", {
      PREDEX_ENGINE_LEASE_MS: String(leaseMs),
    });
    const url = env.PREDEX_DATABASE_URL!;
    const startEngine = () => topology.startNode("engine", env);
    const first = startEngine();
    await first.waitFor(leadingLine, 60_000);
    const second = startEngine();
    await second.waitFor(/standby, following/, 60_000);

    const pool = openPostgresPool({ url, applicationName: "predex-api:switch", poolConnectionsMax: 4 });
    topology.onStop(() => pool.end());
    const engine = await ForwardingEngine.start({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      cluster: await openPostgresEngineCluster<ExchangeCommand, ExchangeEvent>(pool, {
        url,
        applicationName: "predex-api:switch",
        pollEveryMs: 200,
      }),
      key: deriveCommandKey(Buffer.from(testMasterKeyHex, "hex")),
      logger: pino({ level: "silent" }),
      failoverDeadlineMs: 30_000,
      attemptTimeoutMs: 1_000,
    });
    topology.onStop(() => engine.close());
    const committed: JournalEntry<ExchangeCommand, ExchangeEvent>[] = [];
    engine.onCommitted((entries) => committed.push(...entries));

    const accepted = async (command: ExchangeCommand) => {
      const result = await engine.submit(command);
      assert.ok(
        result.ok,
        JSON.stringify(result, (_key, value) => (typeof value === "bigint" ? String(value) : value)),
      );
      return result;
    };
    await accepted(createMarketCommand({ title: "Switch" }));
    await accepted({ type: "OpenMarket", marketId: 1 });
    await accepted({ type: "Deposit", userId: 7, amount: 100_00_000_000n, txHash: "0xswitch" });
    const quotes = [10_000_000n, 20_000_000n, 30_000_000n].map((limitPrice) =>
      limitOrderCommand({
        userId: 7,
        marketId: 1,
        outcomeId: 1,
        optionId: 1,
        side: "BUY",
        limitPrice,
        shares: 1_000_000_000n,
      }),
    );
    const placed = await engine.submitMany(quotes);
    assert.ok(placed.every((result) => result.ok));
    assert.equal(new Set(placed.map((result) => result.ok && result.nowMs)).size, 1, "one batch");
    const heartbeat = await accepted({ type: "Heartbeat", userId: 7, timeoutMs });
    const armed = heartbeat.events[0];
    assert.ok(armed?.type === "DeadMansSwitchArmed");
    const deadlineMs = armed.expiresAtMs;

    first.kill("SIGKILL");
    await first.exited;
    await second.waitFor(leadingLine, 30_000);
    const tookOverMs = Date.now();
    assert.ok(
      tookOverMs < deadlineMs - 1_000,
      `the standby led ${deadlineMs - tookOverMs} ms before the deadline`,
    );
    const openOrders = () => engine.read((state) => state.accounts.get(7)?.openOrderCount ?? 0);
    assert.equal(await openOrders(), 3, "nothing is cancelled before the deadline");

    await waitUntil(async () => (await openOrders()) === 0, { timeoutMs: timeoutMs + 20_000 });
    const trips = committed.filter((entry) => entry.command.type === "TripDeadMansSwitch");
    assert.equal(trips.length, 1);
    const [trip] = trips;
    assert.deepEqual(
      trip!.events.map((event) => (event.type === "OrderCancelled" ? event.reason : event.type)),
      ["DEAD_MANS_SWITCH", "DEAD_MANS_SWITCH", "DEAD_MANS_SWITCH", "DeadMansSwitchTripped"],
    );
    assert.ok(trip!.nowMs >= deadlineMs, "not before the deadline");
    assert.ok(trip!.nowMs < deadlineMs + lateMsMax, `${trip!.nowMs - deadlineMs} ms late`);
    assert.equal(await engine.read((state) => state.deadMansSwitches.size), 0, "gone off: disarmed");

    // The new leader takes groups over its command port as the first did.
    const again = await engine.submitMany(quotes.map((quote) => ({ ...quote })));
    assert.ok(again.every((result) => result.ok));
    assert.equal(await openOrders(), 3);
  });
});
