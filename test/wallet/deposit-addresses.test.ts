// Deposit addresses: user N's is the child 0/N of the operator's account-level xpub (m/44'/60'/0'),
// so the operator's own wallet holds every address's key; the same user always gets the same
// address; issued addresses map back to their user, in any letter case. Known answers come from
// Hardhat's public test mnemonic, whose accounts every Ethereum tool lists.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { HDKey } from "@scure/bip32";
import { mnemonicToAccount } from "viem/accounts";
import { loadChainConfig } from "../../src/config/chain-config.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { createSqliteDepositAddressStore } from "../../src/store/sqlite/deposit-addresses.js";
import {
  accountKeyOf,
  clusterDepositKeySource,
  depositKeySource,
  masterKeyDemoMnemonic,
} from "../../src/wallet/demo-deposit-key.js";
import { DepositAddresses, evmAddressPattern } from "../../src/wallet/deposit-addresses.js";

const hardhatMnemonic = "test test test test test test test test test test test junk";
const hardhatAccountXpub =
  "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP";
const nowMs = 1_800_000_000_000;

function addresses(xpub = hardhatAccountXpub, db = openDatabase({ path: ":memory:" })) {
  return new DepositAddresses(HDKey.fromExtendedKey(xpub), createSqliteDepositAddressStore(db));
}

describe("deposit addresses", () => {
  it("are the xpub's child 0/N, the address a wallet with the mnemonic shows as account N", async () => {
    const wallet = addresses();
    assert.equal(await wallet.addressOf(1, nowMs), "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    assert.equal(await wallet.addressOf(2, nowMs), "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
    for (const userId of [3, 17, 1_000, 65_537]) {
      assert.equal(
        await wallet.addressOf(userId, nowMs),
        mnemonicToAccount(hardhatMnemonic, { addressIndex: userId }).address,
      );
    }
  });

  it("are 0x and 40 hex digits, checksummed, the same for a user every time and across instances", async () => {
    const db = openDatabase({ path: ":memory:" });
    const first = await addresses(hardhatAccountXpub, db).addressOf(42, nowMs);
    assert.ok(evmAddressPattern.test(first));
    assert.notEqual(first, first.toLowerCase());
    assert.equal(await addresses(hardhatAccountXpub, db).addressOf(42, nowMs + 1), first);
    assert.equal(await addresses().addressOf(42, nowMs), first);
  });

  it("differ between users and between account keys", async () => {
    const wallet = addresses();
    const seen = new Set(
      await Promise.all(Array.from({ length: 300 }, (_, index) => wallet.addressOf(index + 1, nowMs))),
    );
    assert.equal(seen.size, 300);
    const otherXpub = accountKeyOf(
      "legal winner thank year wave sausage worth useful legal winner thank yellow",
    );
    const other = new DepositAddresses(
      otherXpub,
      createSqliteDepositAddressStore(openDatabase({ path: ":memory:" })),
    );
    assert.notEqual(await other.addressOf(42, nowMs), await wallet.addressOf(42, nowMs));
  });

  it("map back to their user once issued, in any letter case, and are watched; others are not", async () => {
    const wallet = addresses();
    const issued = await wallet.addressOf(7, nowMs);
    assert.equal(await wallet.userIdOf(issued), 7);
    assert.equal(await wallet.userIdOf(issued.toLowerCase()), 7);
    assert.equal(await wallet.userIdOf(`0x${issued.slice(2).toUpperCase()}`), 7);
    assert.equal(await wallet.userIdOf(`0x${"0".repeat(40)}`), undefined);
    assert.equal(await wallet.userIdOf("0x1234"), undefined);
    assert.deepEqual(await wallet.watched(), [{ address: issued.toLowerCase(), userId: 7 }]);
    // Derived but never shown to anyone: nothing maps it to a user.
    assert.equal(await wallet.userIdOf(wallet.derive(8)), undefined);
  });

  it("still name the user of an address issued before the account key (the old HMAC table)", async () => {
    const db = openDatabase({ path: ":memory:" });
    const wallet = addresses(hardhatAccountXpub, db);
    db.prepare("INSERT INTO wallet_deposit_addresses (address, user_id, issued_at_ms) VALUES (?, ?, ?)").run(
      `0x${"ab".repeat(20)}`,
      9,
      nowMs,
    );
    assert.equal(await wallet.userIdOf(`0x${"AB".repeat(20)}`), 9);
    assert.notEqual((await wallet.addressOf(9, nowMs)).toLowerCase(), `0x${"ab".repeat(20)}`);
    assert.deepEqual(await wallet.watched(), [{ address: wallet.derive(9).toLowerCase(), userId: 9 }]);
  });

  it("come from a demo mnemonic kept in the data dir when no xpub is given", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "predex-demo-key-"));
    try {
      const first = depositKeySource(undefined, dataDir);
      assert.equal(first.demo?.created, true);
      assert.equal(first.demo?.mnemonic.split(" ").length, 12);
      assert.equal(statSync(first.demo!.path!).mode & 0o777, 0o600);
      assert.equal(readFileSync(first.demo!.path!, "utf8").trim(), first.demo?.mnemonic);
      const again = depositKeySource(undefined, dataDir);
      assert.equal(again.demo?.created, false);
      assert.equal(again.accountKey.publicExtendedKey, first.accountKey.publicExtendedKey);
      assert.equal(first.accountKey.privateKey, null);
      const fromXpub = depositKeySource(hardhatAccountXpub, dataDir);
      assert.equal(fromXpub.demo, undefined);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("come on PostgreSQL from the xpub, else from a demo mnemonic of the master key: one per key, none on disk", () => {
    const masterKey = Buffer.alloc(32, 7);
    const first = clusterDepositKeySource(undefined, () => masterKey);
    const again = clusterDepositKeySource(undefined, () => Buffer.from(masterKey));
    assert.equal(first.demo?.path, undefined);
    assert.equal(first.demo?.mnemonic, masterKeyDemoMnemonic(masterKey));
    assert.equal(first.demo?.mnemonic.split(" ").length, 12);
    assert.equal(again.accountKey.publicExtendedKey, first.accountKey.publicExtendedKey);
    assert.equal(first.accountKey.privateKey, null);
    // Its keys are the mnemonic's: a wallet given the printed words holds every demo address's key.
    assert.equal(first.accountKey.publicExtendedKey, accountKeyOf(first.demo!.mnemonic).publicExtendedKey);
    const other = clusterDepositKeySource(undefined, () => Buffer.alloc(32, 8));
    assert.notEqual(other.accountKey.publicExtendedKey, first.accountKey.publicExtendedKey);
    // With an xpub the master key is not even asked for.
    const fromXpub = clusterDepositKeySource(hardhatAccountXpub, () => assert.fail("master key read"));
    assert.equal(fromXpub.accountKey.publicExtendedKey, hardhatAccountXpub);
    assert.equal(fromXpub.demo, undefined);
  });

  it("refuse an xprv, a key at another depth and garbage as PREDEX_DEPOSIT_XPUB", () => {
    const error = (message: string) => new Error(message);
    const xprv = HDKey.fromMasterSeed(new Uint8Array(32).fill(1)).derive("m/44'/60'/0'").privateExtendedKey;
    assert.throws(() => loadChainConfig({ PREDEX_DEPOSIT_XPUB: xprv }, error), /private key/);
    const master = HDKey.fromMasterSeed(new Uint8Array(32).fill(1)).publicExtendedKey;
    assert.throws(() => loadChainConfig({ PREDEX_DEPOSIT_XPUB: master }, error), /depth 3/);
    assert.throws(() => loadChainConfig({ PREDEX_DEPOSIT_XPUB: "xpub-nope" }, error), /extended public key/);
    assert.equal(
      loadChainConfig({ PREDEX_DEPOSIT_XPUB: hardhatAccountXpub }, error).depositXpub,
      hardhatAccountXpub,
    );
  });
});
