// Deposit addresses: derived from the master key and the user id, so the same user always gets the
// same ERC20-shaped address and nobody can predict another's without the key; issued addresses
// map back to their user, in any letter case.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { createSqliteDepositAddressStore } from "../../src/store/sqlite/deposit-addresses.js";
import { DepositAddresses, evmAddressPattern } from "../../src/wallet/deposit-addresses.js";

const masterKey = Buffer.alloc(32, 7);
const nowMs = 1_800_000_000_000;

function addresses(key = masterKey) {
  const db = openDatabase({ path: ":memory:" });
  return new DepositAddresses(key, createSqliteDepositAddressStore(db));
}

describe("deposit addresses", () => {
  it("are 0x and 40 lower-case hex digits, the same for a user every time and across instances", () => {
    const first = addresses().addressOf(42, nowMs);
    assert.match(first, /^0x[0-9a-f]{40}$/);
    assert.ok(evmAddressPattern.test(first));
    assert.equal(addresses().addressOf(42, nowMs + 1), first);
  });

  it("differ between users and between master keys", () => {
    const wallet = addresses();
    const seen = new Set(Array.from({ length: 1_000 }, (_, index) => wallet.addressOf(index + 1, nowMs)));
    assert.equal(seen.size, 1_000);
    assert.notEqual(addresses(Buffer.alloc(32, 8)).addressOf(42, nowMs), wallet.addressOf(42, nowMs));
  });

  it("map back to their user once issued, in any letter case; never-issued or malformed ones do not", () => {
    const wallet = addresses();
    const issued = wallet.addressOf(7, nowMs);
    assert.equal(wallet.userIdOf(issued), 7);
    assert.equal(wallet.userIdOf(`0x${issued.slice(2).toUpperCase()}`), 7);
    assert.equal(wallet.userIdOf(`0x${"0".repeat(40)}`), undefined);
    assert.equal(wallet.userIdOf("0x1234"), undefined);
    // Derived but never shown to anyone: the chain watcher has nothing to map it to.
    const other = addresses();
    assert.equal(other.userIdOf(issued), undefined);
  });
});
