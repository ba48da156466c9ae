// The order of POST /withdraw/apply's checks (src/wallet/withdrawal-requests.ts), against the real
// engine and a recording MFA service: a refused request never consumes the ticket, except when the
// ticket itself is what is refused; a ticket sent while MFA is off is not looked at.

import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import {
  balanceOf,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import type { ExchangeEngine } from "../../src/exchange/exchange-host.js";
import { type MfaResult, mfaRejections, refuse, succeed } from "../../src/mfa/errors.js";
import type { VerifyMethod } from "../../src/mfa/policy.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { WithdrawalRequests } from "../../src/wallet/withdrawal-requests.js";

const unit = 100_000_000n;
const userId = 1;
const address = `0x${"ef".repeat(20)}`;

class RecordingMfa {
  enabled = true;
  readonly consumed: string[] = [];
  readonly valid = new Set<string>();
  async isMfaEnabled(): Promise<boolean> {
    return this.enabled;
  }
  async consumeMfaTicket(_userId: number, ticket: string): Promise<MfaResult<{ method: VerifyMethod }>> {
    this.consumed.push(ticket);
    if (!this.valid.delete(ticket)) return refuse(mfaRejections.invalidTicket);
    return succeed({ method: "totp" });
  }
}

let engine: ExchangeEngine;
let mfa: RecordingMfa;
let requests: WithdrawalRequests;

beforeEach(async () => {
  const db = openDatabase({ path: ":memory:" });
  engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
    projectors: [],
    clock: () => 1_800_000_000_000,
    onFatal: (error) => {
      throw error;
    },
  });
  assert.ok((await engine.submit({ type: "Deposit", userId, amount: 100n * unit, txHash: "0x1" })).ok);
  mfa = new RecordingMfa();
  requests = new WithdrawalRequests({ engine, mfa, nowMs: () => 1_800_000_000_000 });
});

const available = () => engine.read((state) => balanceOf(state, userId).available);

describe("withdrawal requests", () => {
  it("check the input before anything else: the ticket is not touched", async () => {
    mfa.valid.add("t1");
    for (const input of [
      { amount: 10.123456789, address, mfaTicket: "t1" },
      { amount: 5, address, mfaTicket: "t1" },
      { amount: 20, address: "0xnot-an-address", mfaTicket: "t1" },
    ]) {
      const result = await requests.request(userId, input);
      assert.ok(!result.ok && "rejection" in result);
    }
    assert.deepEqual(mfa.consumed, []);
    assert.equal(await available(), 100n * unit);
  });

  it("refuse a withdrawal that does not fit before the ticket is consumed", async () => {
    mfa.valid.add("t1");
    const result = await requests.request(userId, { amount: 100, address, mfaTicket: "t1" });
    assert.ok(!result.ok && "rejection" in result && result.rejection.code === "INSUFFICIENT_BALANCE");
    assert.deepEqual(mfa.consumed, []);
    assert.ok((await requests.request(userId, { amount: 99, address, mfaTicket: "t1" })).ok);
    assert.deepEqual(mfa.consumed, ["t1"]);
    assert.equal(await available(), 0n);
  });

  it("require a ticket when MFA is on, and answer a bad one with the MFA rejection", async () => {
    const missing = await requests.request(userId, { amount: 20, address });
    assert.ok(!missing.ok && "rejection" in missing && missing.rejection.message === "mfaTicket is required");
    const bad = await requests.request(userId, { amount: 20, address, mfaTicket: "forged" });
    assert.ok(!bad.ok && "mfaRejection" in bad && bad.mfaRejection.code === 6001);
    assert.equal(await available(), 100n * unit);
  });

  it("ignore a ticket when MFA is off", async () => {
    mfa.enabled = false;
    const result = await requests.request(userId, { amount: 20, address, mfaTicket: "anything" });
    assert.ok(result.ok);
    assert.deepEqual([result.requested.amount, result.requested.fee], [20n * unit, 1n * unit]);
    assert.deepEqual(mfa.consumed, []);
  });

  it("take one user's MFA-guarded requests one at a time: of two that together do not fit, one keeps its ticket", async () => {
    mfa.valid.add("a");
    mfa.valid.add("b");
    const [first, second] = await Promise.all([
      requests.request(userId, { amount: 60, address, mfaTicket: "a" }),
      requests.request(userId, { amount: 60, address, mfaTicket: "b" }),
    ]);
    assert.ok(first.ok);
    assert.ok(!second.ok && "rejection" in second && second.rejection.code === "INSUFFICIENT_BALANCE");
    assert.deepEqual(mfa.consumed, ["a"]);
    assert.equal(await available(), 39n * unit);
  });
});
