// Chain tests run against a real EVM node: the devnet (src/chain/devnet/devnet.ts, Hardhat's
// network from npm) on a free loopback port, with automine (one block per transaction) and no
// interval mining, so a test moves the chain with evm_mine / hardhat_mine. The platform runs with
// 3 confirmations and a 50 ms poll, deposit addresses from a BIP-39 test mnemonic's xpub.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, createWalletClient, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type Devnet, testUsdtAbi } from "../../src/chain/devnet/devnet.js";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { type Platform, startPlatform } from "../../src/server.js";
import { accountKeyOf } from "../../src/wallet/demo-deposit-key.js";
import { type PartnerCredentials, testPlatformConfig } from "../e2e/harness.js";

/** BIP-39's published test vector: its keys are public, so the test can prove it controls an address. */
export const testMnemonic = "legal winner thank year wave sausage worth useful legal winner thank yellow";
export const testAccountXpub = accountKeyOf(testMnemonic).publicExtendedKey;
export const testConfirmations = 3;

export interface ChainPlatform {
  readonly platform: Platform;
  readonly dataDir: string;
  readonly operator: PredexAdminClient;
  readonly partner: PartnerCredentials;
  /** A client for one user (registering the same id again is the same user). */
  user(marchantUserId: string): Promise<{ client: PredexClient; userId: number }>;
  close(options?: { keepData?: boolean }): Promise<void>;
}

export async function startChainPlatform(
  devnet: Devnet,
  options: { dataDir?: string; partner?: PartnerCredentials; env?: Record<string, string> } = {},
): Promise<ChainPlatform> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "predex-chain-"));
  const config = testPlatformConfig(dataDir, {
    PREDEX_CHAIN_RPC_URL: devnet.rpcUrl,
    PREDEX_USDT_CONTRACT: devnet.usdtContract,
    PREDEX_CONFIRMATIONS: String(testConfirmations),
    PREDEX_CHAIN_POLL_MS: "50",
    PREDEX_DEPOSIT_XPUB: testAccountXpub,
    ...options.env,
  });
  const platform = await startPlatform(config);
  const operator = new PredexAdminClient({ baseUrl: platform.addresses.admin, token: platform.adminToken });
  const partner = options.partner ?? ((await operator.createPartner()) as unknown as PartnerCredentials);
  return {
    platform,
    dataDir,
    operator,
    partner,
    async user(marchantUserId) {
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
    },
    async close(closeOptions = {}) {
      await platform.close();
      if (closeOptions.keepData !== true) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Sends test USDT (6-decimal units) from `key`; automine puts it in a block of its own. */
export async function sendUsdt(devnet: Devnet, key: Hex, to: string, units: bigint): Promise<Hex> {
  const wallet = createWalletClient({
    account: privateKeyToAccount(key),
    chain: devnet.chain,
    transport: http(devnet.rpcUrl),
  });
  const hash = await wallet.writeContract({
    address: devnet.usdtContract,
    abi: testUsdtAbi,
    functionName: "transfer",
    args: [to as Address, units],
  });
  await devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return hash;
}

export async function usdtUnitsOf(devnet: Devnet, address: string): Promise<bigint> {
  return (await devnet.publicClient.readContract({
    address: devnet.usdtContract,
    abi: testUsdtAbi,
    functionName: "balanceOf",
    args: [address as Address],
  })) as bigint;
}

/**
 * How chain tests wait (test/support/wait-until.ts) for the devnet, the watchers and the sender:
 * up to 15 s, a check that fails meanwhile (a node still starting) tried again.
 */
export const chainWait = { timeoutMs: 15_000, intervalMs: 25, retryErrors: true } as const;

/** Lets the watcher and sender run a few rounds (50 ms each) with nothing changing. */
export function settle(ms = 400): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
