// The hub closes every socket with 1011 `upstream unavailable` when the exchange engine behind it
// has stopped, found by its periodic check (spec 000 "Events" rule 2). The check's timer is mocked:
// the test moves time instead of sleeping.

import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it, mock } from "node:test";
import { pino } from "pino";
import { createInitialState } from "../../src/core/state.js";
import type { ExchangeEngine } from "../../src/exchange/exchange-host.js";
import { Subscriber } from "../../src/realtime/fanout.js";
import { RealtimeHub } from "../../src/realtime/hub.js";
import { realtimeLimits } from "../../src/realtime/limits.js";

class FakeSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  closedWith: [number, string] | undefined;
  close(code: number, reason: string) {
    this.closedWith = [code, reason];
    this.readyState = 3;
    this.emit("close", code, Buffer.from(reason));
  }
  terminate() {
    this.close(1006, "");
  }
  send() {}
  ping() {}
}

describe("RealtimeHub", () => {
  it("closes every socket with 1011 upstream unavailable once the engine has failed", async () => {
    const state = createInitialState("reference");
    const engine = {
      phase: "running",
      onCommitted: () => () => undefined,
      read: async <T>(reader: (s: typeof state, p: { sequence: bigint; nowMs: number }) => T) =>
        reader(state, { sequence: 0n, nowMs: 0 }),
    };
    mock.timers.enable({ apis: ["setInterval"] });
    const hub = await RealtimeHub.start({
      engine: engine as unknown as ExchangeEngine,
      identity: {} as never,
      readModels: {} as never,
      limits: realtimeLimits({ sessionCheckIntervalMs: 20 }),
      logger: pino({ level: "silent" }),
    });
    const socket = new FakeSocket();
    const subscriber = new Subscriber(socket as never, 1024);
    hub.track(subscriber, () => undefined);
    hub.addMarketPriceSubscriber(subscriber, 1);
    try {
      mock.timers.tick(60);
      assert.equal(socket.closedWith, undefined);
      engine.phase = "failed";
      assert.equal(socket.closedWith, undefined, "nothing happens before the next check");
      mock.timers.tick(20);
      assert.deepEqual(socket.closedWith, [1011, "upstream unavailable"]);
      assert.equal(hub.upstreamHealthy, false);
    } finally {
      hub.close();
      mock.timers.reset();
    }
  });
});
