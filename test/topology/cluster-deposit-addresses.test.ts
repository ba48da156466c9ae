// Deposit addresses on a PostgreSQL deployment of several nodes (issue #27, defect 9): every node
// gives a user the same address, because every node derives it from the one key the database
// records (PREDEX_DEPOSIT_XPUB, or the demo key of the shared PREDEX_MASTER_KEY); a node with another
// key is refused at start and says which; `predex deposit-key adopt` is the operator's way to change
// the cluster's key; and the chain watcher, running on every node with a chain, credits a deposit to
// an address one node showed to the right user, once.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { HDKey } from "@scure/bip32";
import { pino } from "pino";
import { type Devnet, startDevnet } from "../../src/chain/devnet/devnet.js";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { type Platform, type PlatformOptions, startPlatform } from "../../src/server.js";
import { DepositKeyMismatchError } from "../../src/wallet/cluster-deposit-key.js";
import { accountKeyOf, masterKeyDemoMnemonic } from "../../src/wallet/demo-deposit-key.js";
import { DepositAddresses } from "../../src/wallet/deposit-addresses.js";
import {
  chainWait,
  sendUsdt,
  settle,
  startChainPlatform,
  testAccountXpub,
  testConfirmations,
} from "../chain/fixtures.js";
import { type PartnerCredentials, testMasterKeyHex, testPlatformConfig } from "../e2e/harness.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { type PostgresDatabases, postgresDatabases } from "../support/postgres-databases.js";
import { waitForValue } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const adminToken = "deposit-key-test-admin-token-0123456789";
const otherMasterKeyHex = "0ddba11".padEnd(64, "0");
const run = promisify(execFile);
const cliEntry = new URL("../../src/cli/main.ts", import.meta.url).pathname;

describe("deposit addresses on several nodes of one PostgreSQL database", { skip: skipReason }, () => {
  let databases: PostgresDatabases;
  const dataDirs: string[] = [];
  const platforms: Platform[] = [];

  const newDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "predex-deposit-key-"));
    dataDirs.push(dir);
    return dir;
  };
  /** A node on `url` with its own data dir, the shared secrets, then `env`. */
  const startNode = async (
    url: string,
    env: Record<string, string> = {},
    options: PlatformOptions = {},
  ): Promise<Platform> => {
    const config = testPlatformConfig(newDataDir(), {
      PREDEX_DATABASE_URL: url,
      PREDEX_MASTER_KEY: testMasterKeyHex,
      PREDEX_ADMIN_TOKEN: adminToken,
      ...env,
    });
    const platform = await startPlatform(config, { logger: pino({ level: "silent" }), ...options });
    platforms.push(platform);
    return platform;
  };
  const userOn = async (platform: Platform, partner: PartnerCredentials, marchantUserId: string) => {
    const client = new PredexClient({
      baseUrl: platform.addresses.gateway,
      credentials: partner,
      retry: { attemptsMax: 3, delayMsBase: 1, delayMsMax: 5 },
    });
    const registered = await client.register({
      userEmail: `${marchantUserId}@example.com`,
      merchantId: partner.merchantId,
      marchantUserId,
    });
    return { client, userId: Number(registered.userId) };
  };
  const cli = (args: string[], env: Record<string, string>) =>
    run(process.execPath, ["--import", "tsx", cliEntry, ...args], {
      env: { ...process.env, PREDEX_LOG_LEVEL: "silent", ...env },
    });

  before(() => {
    databases = postgresDatabases("deposit_key");
  });
  after(async () => {
    for (const platform of platforms.splice(0).reverse()) await platform.close();
    await databases?.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("gives a user the same address through every node (demo key of the shared master key)", {
    timeout: 120_000,
  }, async () => {
    const url = await databases.fresh();
    const first = await startNode(url);
    const second = await startNode(url, {}, { role: "api" });
    const operator = new PredexAdminClient({ baseUrl: first.addresses.admin, token: adminToken });
    const partner = (await operator.createPartner()) as unknown as PartnerCredentials;
    for (const name of ["alice", "bob", "carol"]) {
      const onFirst = await userOn(first, partner, name);
      const onSecond = await userOn(second, partner, name);
      assert.equal(onSecond.userId, onFirst.userId);
      const fromSecond = (await onSecond.client.getDepositAddress()).address;
      const fromFirst = (await onFirst.client.getDepositAddress()).address;
      assert.equal(fromFirst, fromSecond, `${name}'s address differs between the nodes`);
      // Child 0/N of the demo key derived from the master key, which every node has.
      const demoKey = accountKeyOf(masterKeyDemoMnemonic(Buffer.from(testMasterKeyHex, "hex")));
      assert.equal(
        fromFirst,
        new DepositAddresses(demoKey, first.stores.depositAddresses).derive(onFirst.userId),
      );
    }
    // Nothing written to either node's data dir: the key is the cluster's, not the node's.
    assert.equal(first.depositKey.demo?.path, undefined);
    assert.equal(second.depositKey.demo?.path, undefined);
  });

  it("refuses at start a node with another key, naming both, and starts one with the same", {
    timeout: 120_000,
  }, async () => {
    const url = await databases.fresh();
    const first = await startNode(url, { PREDEX_DEPOSIT_XPUB: testAccountXpub });
    const keyId = DepositAddresses.keyIdOf(HDKey.fromExtendedKey(testAccountXpub));
    const refusedWith = (pattern: RegExp) => (error: unknown) => {
      assert.ok(error instanceof DepositKeyMismatchError, String(error));
      assert.match(error.message, pattern);
      assert.match(error.message, new RegExp(`PREDEX_DEPOSIT_XPUB \\(key id ${keyId}\\)`));
      assert.match(error.message, /predex deposit-key adopt/);
      return true;
    };
    // No xpub: it would derive the demo key of the master key.
    await assert.rejects(
      startNode(url, {}, { role: "api" }),
      refusedWith(/the demo key derived from PREDEX_MASTER_KEY.*set PREDEX_DEPOSIT_XPUB on this node/),
    );
    // Another xpub (the account key of another mnemonic).
    const otherXpub = accountKeyOf(
      "test test test test test test test test test test test junk",
    ).publicExtendedKey;
    await assert.rejects(
      startNode(url, { PREDEX_DEPOSIT_XPUB: otherXpub }, { role: "api" }),
      refusedWith(new RegExp(`set PREDEX_DEPOSIT_XPUB on this node to the cluster's, ${testAccountXpub}`)),
    );
    // The same xpub: it starts, and agrees with the first node.
    const second = await startNode(url, { PREDEX_DEPOSIT_XPUB: testAccountXpub }, { role: "api" });
    const operator = new PredexAdminClient({ baseUrl: first.addresses.admin, token: adminToken });
    const partner = (await operator.createPartner()) as unknown as PartnerCredentials;
    const onFirst = await userOn(first, partner, "dave");
    const onSecond = await userOn(second, partner, "dave");
    assert.equal(
      (await onSecond.client.getDepositAddress()).address,
      (await onFirst.client.getDepositAddress()).address,
    );
  });

  it("refuses on the demo key a node with another master key", { timeout: 120_000 }, async () => {
    const url = await databases.fresh();
    await startNode(url);
    await assert.rejects(
      startNode(url, { PREDEX_MASTER_KEY: otherMasterKeyHex }, { role: "api" }),
      (error) => {
        assert.ok(error instanceof DepositKeyMismatchError, String(error));
        assert.match(error.message, /give this node the cluster's PREDEX_MASTER_KEY/);
        return true;
      },
    );
  });

  it("changes the cluster's key only through predex deposit-key adopt", { timeout: 180_000 }, async () => {
    const url = await databases.fresh();
    const trial = await startNode(url);
    await trial.close();
    platforms.splice(platforms.indexOf(trial), 1);
    const env = { PREDEX_DATABASE_URL: url, PREDEX_MASTER_KEY: testMasterKeyHex };
    const xpubEnv = { ...env, PREDEX_DEPOSIT_XPUB: testAccountXpub };
    await assert.rejects(startNode(url, { PREDEX_DEPOSIT_XPUB: testAccountXpub }), DepositKeyMismatchError);

    const shown = await cli(["deposit-key", "show"], xpubEnv);
    assert.match(shown.stdout, /This database: the demo key derived from PREDEX_MASTER_KEY/);
    assert.match(shown.stdout, /This node: +PREDEX_DEPOSIT_XPUB/);
    assert.match(shown.stdout, /They differ/);

    const adopted = await cli(["deposit-key", "adopt"], xpubEnv);
    assert.match(adopted.stdout, /now come from PREDEX_DEPOSIT_XPUB/);
    assert.match(adopted.stdout, /Before: the demo key derived from PREDEX_MASTER_KEY/);
    assert.match(adopted.stdout, /Restart every API node/);

    // Now the xpub node starts and the demo-key node is the one refused.
    const node = await startNode(url, { PREDEX_DEPOSIT_XPUB: testAccountXpub });
    await assert.rejects(startNode(url, {}, { role: "api" }), DepositKeyMismatchError);
    assert.match((await cli(["deposit-key", "show"], xpubEnv)).stdout, /They are the same/);
    assert.equal(node.depositKey.demo, undefined);
  });
});

describe("the chain watcher on two nodes of one PostgreSQL database", { skip: skipReason }, () => {
  let databases: PostgresDatabases;
  let devnet: Devnet;
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    databases = postgresDatabases("deposit_key_chain");
    devnet = await startDevnet({ intervalMiningMs: 0 });
  });
  after(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await devnet?.stop();
    await databases?.close();
  });

  it("credits a deposit to an address one node showed to its user, once, seen alike on both", {
    timeout: 180_000,
  }, async () => {
    const url = await databases.fresh();
    const env = { PREDEX_DATABASE_URL: url, PREDEX_MASTER_KEY: testMasterKeyHex };
    const first = await startChainPlatform(devnet, { env });
    closers.push(() => first.close());
    const second = await startChainPlatform(devnet, { env, partner: first.partner });
    closers.push(() => second.close());
    // A bystander with an address too, so "the right user" is a choice between two.
    const bystander = await first.user("bystander");
    await bystander.client.getDepositAddress();
    const depositor = await second.user("depositor");
    const { address } = await depositor.client.getDepositAddress();
    const txHash = await sendUsdt(devnet, devnet.fundedKey, address, 12_500_000n);
    await devnet.mine(testConfirmations);
    const onFirst = await first.user("depositor");
    assert.equal(onFirst.userId, depositor.userId);
    for (const client of [depositor.client, onFirst.client]) {
      await waitForValue(
        async () => {
          const history = await client.getDepositHistory({ pageSize: 100 });
          return history.records.find((record) => record.txHash === txHash && record.status === "CREDITED");
        },
        { ...chainWait, what: "the credit, on each node" },
      );
    }
    await devnet.mine(3);
    await settle();
    for (const client of [depositor.client, onFirst.client]) {
      const assets = await client.getAssets();
      assert.equal(assets.find((asset) => asset.coinId === "2")?.available, "12.5");
      assert.equal((await client.getDepositHistory()).count, 1);
    }
    const bystanderAssets = await bystander.client.getAssets();
    assert.equal(bystanderAssets.find((asset) => asset.coinId === "2")?.available ?? "0", "0");
  });
});
