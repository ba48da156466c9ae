// The OperationsQueries contract (src/store/operations-queries.ts), run on SQLite and PostgreSQL
// (test/store/operations-queries.test.ts): the probe answers while the database does and rejects
// once it is closed; the legacy queue depth counts PENDING requests only.

import assert from "node:assert/strict";
import { afterEach, it } from "node:test";
import type { OperationsQueries } from "../../../src/store/operations-queries.js";
import type { PortHarness, PortInstance } from "../../support/port-harness.js";

export function describeOperationsQueriesContract(harness: PortHarness<OperationsQueries>): void {
  let open: PortInstance<OperationsQueries> | undefined;
  const start = async () => {
    open = await harness.open();
    return open;
  };
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });

  it("pings while the database answers and rejects once it is closed", async () => {
    const { store, close } = await start();
    await store.ping();
    await close();
    await assert.rejects(store.ping());
  });

  it("counts the legacy requests still PENDING", async () => {
    const { store, seed } = await start();
    assert.equal(await store.legacyRequestsPending(), 0);
    const request = (sequence: number, status: string) =>
      seed.insert("legacy_requests", {
        request_id: `r-${sequence}`,
        merchant_id: 1,
        user_id: 1,
        instruction: "{}",
        status,
        notify_content: "{}",
        create_time_ms: 1,
        update_time_ms: 1,
      });
    await request(1, "PENDING");
    await request(2, "SUCCESS");
    await request(3, "PENDING");
    await request(4, "FAILED");
    assert.equal(await store.legacyRequestsPending(), 2);
  });
}
