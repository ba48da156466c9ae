// The chain wallet's PREDEX_* settings (DESIGN §4), parsed with the rest in src/config.ts:
//   PREDEX_DEPOSIT_XPUB        account-level extended public key of m/44'/60'/0'; user N's deposit
//                              address is its child 0/N. Unset: a demo mnemonic in the data dir
//                              (on PostgreSQL: derived from the master key, the same on every node).
//   PREDEX_CHAIN_RPC_URL       an EVM node's JSON-RPC URL (http/https); with the contract, turns the
//   PREDEX_USDT_CONTRACT       deposit watcher on (the token's address, 0x + 40 hex)
//   PREDEX_CONFIRMATIONS       blocks a transfer needs (its own included) before it counts; default 12
//   PREDEX_CHAIN_POLL_MS       how often the node is asked for a new block; default 250
//   PREDEX_CHAIN_START_BLOCK   where a first start begins watching; default the head at that start
//   PREDEX_WITHDRAWAL_KEY_FILE a file holding the hot wallet's 0x-hex private key; with it, approved
//                              withdrawals are sent on chain. Unset: exported unsigned for the operator.

import { HDKey } from "@scure/bip32";

export interface ChainNetworkConfig {
  readonly rpcUrl: string;
  /** Lower case. */
  readonly usdtContract: string;
  readonly confirmations: number;
  readonly pollMs: number;
  readonly startBlock: bigint | undefined;
}

export interface ChainConfig {
  /** Validated account-level xpub; undefined uses the demo mnemonic. */
  readonly depositXpub: string | undefined;
  /** Undefined: no chain (the embedded demo); deposits only by the operator. */
  readonly network: ChainNetworkConfig | undefined;
  readonly withdrawalKeyFile: string | undefined;
}

export const defaultConfirmations = 12;
/** Half of it is the mean wait before a confirmed deposit is credited (bench:chain). */
export const defaultChainPollMs = 250;
/** Past this a reorganisation is not a fork but a broken node; refuse such a setting. */
export const confirmationsMax = 1_000;

type Environment = Readonly<Record<string, string | undefined>>;

export function loadChainConfig(env: Environment, error: (message: string) => Error): ChainConfig {
  const text = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const depositXpub = text("PREDEX_DEPOSIT_XPUB");
  if (depositXpub !== undefined) {
    const problem = accountXpubProblem(depositXpub);
    if (problem !== undefined) throw error(`PREDEX_DEPOSIT_XPUB ${problem}`);
  }
  const rpcUrl = text("PREDEX_CHAIN_RPC_URL");
  const usdtContract = text("PREDEX_USDT_CONTRACT");
  const withdrawalKeyFile = text("PREDEX_WITHDRAWAL_KEY_FILE");
  if ((rpcUrl === undefined) !== (usdtContract === undefined)) {
    throw error("PREDEX_CHAIN_RPC_URL and PREDEX_USDT_CONTRACT must be set together");
  }
  if (rpcUrl === undefined || usdtContract === undefined) {
    if (withdrawalKeyFile !== undefined) {
      throw error("PREDEX_WITHDRAWAL_KEY_FILE needs PREDEX_CHAIN_RPC_URL and PREDEX_USDT_CONTRACT");
    }
    return { depositXpub, network: undefined, withdrawalKeyFile: undefined };
  }
  if (!/^https?:\/\/[^/]/.test(rpcUrl))
    throw error("PREDEX_CHAIN_RPC_URL must be an http:// or https:// URL");
  if (!/^0x[0-9a-fA-F]{40}$/.test(usdtContract)) {
    throw error("PREDEX_USDT_CONTRACT must be 0x followed by 40 hex digits");
  }
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const value = text(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
      throw error(`${name} must be an integer from ${min} to ${max}`);
    }
    return parsed;
  };
  const startBlock = text("PREDEX_CHAIN_START_BLOCK");
  if (startBlock !== undefined && !/^\d{1,18}$/.test(startBlock)) {
    throw error("PREDEX_CHAIN_START_BLOCK must be a block number");
  }
  return {
    depositXpub,
    network: {
      rpcUrl,
      usdtContract: usdtContract.toLowerCase(),
      confirmations: integer("PREDEX_CONFIRMATIONS", defaultConfirmations, 1, confirmationsMax),
      pollMs: integer("PREDEX_CHAIN_POLL_MS", defaultChainPollMs, 10, 60_000),
      startBlock: startBlock === undefined ? undefined : BigInt(startBlock),
    },
    withdrawalKeyFile,
  };
}

/** Why a string is not an account-level extended public key, or undefined when it is one. */
function accountXpubProblem(value: string): string | undefined {
  let key: HDKey;
  try {
    key = HDKey.fromExtendedKey(value);
  } catch {
    return "is not an extended public key (xpub…)";
  }
  // The platform must never hold a deposit private key: an xprv is refused, not used.
  if (key.privateKey !== null) return "holds a private key; give the extended public key (xpub) instead";
  if (key.depth !== 3)
    return `must be the account-level key of m/44'/60'/0' (depth 3, this one is ${key.depth})`;
  return undefined;
}
