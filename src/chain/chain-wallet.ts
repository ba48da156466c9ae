// The chain wallet of a platform started with PREDEX_CHAIN_RPC_URL and PREDEX_USDT_CONTRACT
// (DESIGN §4): one viem client for the node, the deposit watcher, and, with
// PREDEX_WITHDRAWAL_KEY_FILE, the withdrawal sender; without a key file approved withdrawals are
// exported unsigned for an operator who signs elsewhere (unsigned-withdrawals.ts). It checks at
// start that the node answers and that the contract is a token, and reads the token's decimals.

import type { Logger } from "pino";
import { type Address, createPublicClient, defineChain, http, type LocalAccount } from "viem";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { ChainStore } from "../store/chain-store.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import type { DepositAddresses } from "../wallet/deposit-addresses.js";
import { DepositWatcher, type DepositWatcherDeps } from "./deposit-watcher.js";
import { erc20Abi } from "./erc20.js";
import type { WithdrawalFeePolicy } from "./fee-bump.js";
import { loadHotWallet } from "./hot-wallet.js";
import { WithdrawalSender } from "./withdrawal-sender.js";

export class ChainStartError extends Error {
  override name = "ChainStartError";
}

/**
 * The node and the token the wallet works with: the PREDEX_CHAIN_* settings, parsed by the settings
 * layer (src/config/chain-config.ts, whose ChainNetworkConfig has this shape) and handed in by
 * composition, since a service does not read settings.
 */
export interface ChainNetwork {
  readonly rpcUrl: string;
  /** Lower case. */
  readonly usdtContract: string;
  readonly confirmations: number;
  readonly pollMs: number;
  readonly startBlock: bigint | undefined;
  /** How withdrawals' transactions are priced and replaced when they do not mine. */
  readonly withdrawalFees: WithdrawalFeePolicy;
}

export interface ChainWalletOptions {
  readonly network: ChainNetwork;
  readonly withdrawalKeyFile: string | undefined;
  /** Built by composition on the platform's database (src/store/sqlite/chain-store.ts). */
  readonly store: ChainStore;
  readonly engine: ExchangeEngine;
  readonly readModels: ExchangeReadModels;
  readonly addresses: DepositAddresses;
  readonly nowMs: () => number;
  readonly logger: Logger;
  /** The benchmark's hook on every credit. */
  readonly onCredited?: DepositWatcherDeps["onCredited"];
}

export interface ChainWallet {
  readonly store: ChainStore;
  readonly watcher: DepositWatcher;
  /** Undefined without PREDEX_WITHDRAWAL_KEY_FILE: withdrawals are exported unsigned instead. */
  readonly sender: WithdrawalSender | undefined;
  readonly client: ReturnType<typeof createChainClient>;
  readonly token: Address;
  readonly decimals: number;
  readonly chainId: number;
  readonly confirmations: number;
  close(): Promise<void>;
}

function createChainClient(rpcUrl: string, chainId: number, pollMs: number) {
  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return createPublicClient({ chain, transport: http(rpcUrl, { retryCount: 2 }), pollingInterval: pollMs });
}

export async function startChainWallet(options: ChainWalletOptions): Promise<ChainWallet> {
  const { network, logger } = options;
  // The key file is read first: a bad one stops the start before anything touches the chain.
  const account: LocalAccount | undefined =
    options.withdrawalKeyFile === undefined ? undefined : loadHotWallet(options.withdrawalKeyFile);
  const probe = createPublicClient({ transport: http(network.rpcUrl, { retryCount: 2 }) });
  let chainId: number;
  try {
    chainId = await probe.getChainId();
  } catch (error) {
    throw new ChainStartError(
      `PREDEX_CHAIN_RPC_URL ${network.rpcUrl} does not answer (${(error as Error).message.split("\n")[0]})`,
    );
  }
  const client = createChainClient(network.rpcUrl, chainId, network.pollMs);
  const token = network.usdtContract as Address;
  let decimals: number;
  try {
    decimals = await client.readContract({ address: token, abi: erc20Abi, functionName: "decimals" });
  } catch {
    throw new ChainStartError(`PREDEX_USDT_CONTRACT ${token} is not an ERC20 token on chain ${chainId}`);
  }
  const store = options.store;
  const watcher = new DepositWatcher({
    client,
    store,
    addresses: options.addresses,
    engine: options.engine,
    token,
    decimals,
    confirmations: network.confirmations,
    pollMs: network.pollMs,
    startBlock: network.startBlock,
    nowMs: options.nowMs,
    logger: logger.child({ component: "deposit-watcher" }),
    ...(options.onCredited === undefined ? {} : { onCredited: options.onCredited }),
  });
  const sender =
    account === undefined
      ? undefined
      : new WithdrawalSender({
          client,
          account,
          store,
          engine: options.engine,
          readModels: options.readModels,
          token,
          decimals,
          chainId,
          confirmations: network.confirmations,
          pollMs: network.pollMs,
          fees: network.withdrawalFees,
          nowMs: options.nowMs,
          logger: logger.child({ component: "withdrawal-sender" }),
        });
  watcher.start();
  sender?.start();
  logger.info(
    {
      chainId,
      token,
      decimals,
      confirmations: network.confirmations,
      hotWallet: sender?.address ?? null,
    },
    "chain wallet started",
  );
  return {
    store,
    watcher,
    sender,
    client,
    token,
    decimals,
    chainId,
    confirmations: network.confirmations,
    async close() {
      await Promise.all([watcher.stop(), sender?.stop()]);
    },
  };
}
