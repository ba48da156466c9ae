// The DepositAddressStore contract (src/store/deposit-addresses.ts), run on SQLite and PostgreSQL
// (test/store/deposit-address-stores.test.ts) directly and through DepositAddresses: remembered
// pairs per key; the same pair again is a no-op, also from two nodes at once; retired (HMAC-era)
// addresses still name their user.

import assert from "node:assert/strict";
import { afterEach, it } from "node:test";
import { HDKey } from "@scure/bip32";
import type { DepositAddressStore } from "../../../src/store/deposit-addresses.js";
import { DepositAddresses } from "../../../src/wallet/deposit-addresses.js";
import type { PortHarness, PortInstance } from "../../support/port-harness.js";

const hardhatAccountXpub =
  "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP";
const nowMs = 1_800_000_000_000;

export function describeDepositAddressStoreContract(harness: PortHarness<DepositAddressStore>): void {
  let open: PortInstance<DepositAddressStore> | undefined;
  const start = async () => {
    open = await harness.open();
    return open;
  };
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });

  it("remembers an address per user and key, finds its user, and lists a key's addresses by user", async () => {
    const { store } = await start();
    await store.remember(2, "0xbb", "key-1", nowMs);
    await store.remember(1, "0xaa", "key-1", nowMs);
    await store.remember(1, "0xcc", "key-2", nowMs);
    assert.equal(await store.addressOf(1, "key-1"), "0xaa");
    assert.equal(await store.addressOf(1, "key-2"), "0xcc");
    assert.equal(await store.addressOf(2, "key-2"), undefined);
    assert.equal(await store.userIdOf("0xbb"), 2);
    assert.equal(await store.userIdOf("0xcc"), 1);
    assert.equal(await store.userIdOf("0xdd"), undefined);
    assert.deepEqual(await store.issuedUnder("key-1"), [
      { address: "0xaa", userId: 1 },
      { address: "0xbb", userId: 2 },
    ]);
    assert.deepEqual(await store.issuedUnder("key-3"), []);
  });

  it("takes the same pair again as a no-op, also from several nodes at once", async () => {
    const { store, another } = await start();
    await store.remember(7, "0x77", "key", nowMs);
    await store.remember(7, "0x77", "key", nowMs + 1);
    const nodes = [store, await another(), await another()];
    await Promise.all(nodes.map((node) => node.remember(8, "0x88", "key", nowMs)));
    assert.deepEqual(await store.issuedUnder("key"), [
      { address: "0x77", userId: 7 },
      { address: "0x88", userId: 8 },
    ]);
  });

  it("names the user of a retired address, after the current ones", async () => {
    const { store, seed } = await start();
    await seed.insert("wallet_deposit_addresses", { address: "0xold", user_id: 9, issued_at_ms: nowMs });
    assert.equal(await store.userIdOf("0xold"), 9);
    assert.deepEqual(await store.issuedUnder("key"), []);
  });

  it("serves DepositAddresses: issue once, map back in any case, watch the key's addresses", async () => {
    const { store, another } = await start();
    const wallet = new DepositAddresses(HDKey.fromExtendedKey(hardhatAccountXpub), store);
    assert.deepEqual(await wallet.watched(), []);
    const issued = await wallet.addressOf(1, nowMs);
    assert.equal(issued, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    assert.equal(await wallet.userIdOf(issued.toUpperCase().replace("0X", "0x")), 1);
    assert.deepEqual(await wallet.watched(), [{ address: issued.toLowerCase(), userId: 1 }]);
    // Another node's wallet on the same database issues the same address and sees the first's.
    const other = new DepositAddresses(HDKey.fromExtendedKey(hardhatAccountXpub), await another());
    assert.equal(await other.addressOf(1, nowMs + 5), issued);
    assert.equal(await other.addressOf(2, nowMs + 5), "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
    assert.deepEqual(
      (await other.watched()).map((one) => one.userId),
      [1, 2],
    );
    // The first node's watcher sees the address the other node issued after its own first read.
    assert.deepEqual(
      (await wallet.watched()).map((one) => one.userId),
      [1, 2],
    );
    assert.equal(await store.countIssuedUnder(wallet.keyId), 2);
    // Its own issues are added to the list it holds.
    await wallet.addressOf(3, nowMs);
    assert.deepEqual(
      (await wallet.watched()).map((one) => one.userId),
      [1, 2, 3],
    );
  });
}
