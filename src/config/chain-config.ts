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
//   PREDEX_WITHDRAWAL_REPLACE_AFTER_MS  how long a withdrawal's transaction may wait unmined before it
//                              is replaced at its nonce with higher fees; default 180000 (3 minutes)
//   PREDEX_WITHDRAWAL_FEE_BUMP_PERCENT  how much a replacement raises both EIP-1559 fees at least
//                              (nodes want 10 or more); default 20
//   PREDEX_WITHDRAWAL_MAX_FEE_GWEI      the most maxFeePerGas any withdrawal transaction offers, in
//                              gwei (up to 9 decimals); default 500

import { HDKey } from "@scure/bip32";

/** How the hot wallet prices its withdrawals' transactions, and replaces one that does not mine. */
export interface WithdrawalFeeConfig {
  readonly replaceAfterMs: number;
  readonly bumpPercent: number;
  /** Wei. */
  readonly maxFeePerGasCap: bigint;
}

export interface ChainNetworkConfig {
  readonly rpcUrl: string;
  /** Lower case. */
  readonly usdtContract: string;
  readonly confirmations: number;
  readonly pollMs: number;
  readonly startBlock: bigint | undefined;
  /** Used by the withdrawal sender (with PREDEX_WITHDRAWAL_KEY_FILE); parsed and checked always. */
  readonly withdrawalFees: WithdrawalFeeConfig;
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
export const defaultWithdrawalReplaceAfterMs = 180_000;
/** EIP-1559 pools (geth, Hardhat) refuse a replacement that raises either fee by less than 10%. */
export const withdrawalFeeBumpPercentMin = 10;
export const defaultWithdrawalFeeBumpPercent = 20;
export const defaultWithdrawalMaxFeeGwei = "500";
const weiPerGwei = 1_000_000_000n;

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
  const maxFeeGwei = text("PREDEX_WITHDRAWAL_MAX_FEE_GWEI") ?? defaultWithdrawalMaxFeeGwei;
  const maxFeePerGasCap = gweiToWei(maxFeeGwei);
  if (maxFeePerGasCap === undefined || maxFeePerGasCap === 0n) {
    throw error("PREDEX_WITHDRAWAL_MAX_FEE_GWEI must be a positive number of gwei with at most 9 decimals");
  }
  return {
    depositXpub,
    network: {
      rpcUrl,
      usdtContract: usdtContract.toLowerCase(),
      confirmations: integer("PREDEX_CONFIRMATIONS", defaultConfirmations, 1, confirmationsMax),
      pollMs: integer("PREDEX_CHAIN_POLL_MS", defaultChainPollMs, 10, 60_000),
      startBlock: startBlock === undefined ? undefined : BigInt(startBlock),
      withdrawalFees: {
        replaceAfterMs: integer(
          "PREDEX_WITHDRAWAL_REPLACE_AFTER_MS",
          defaultWithdrawalReplaceAfterMs,
          100,
          86_400_000,
        ),
        bumpPercent: integer(
          "PREDEX_WITHDRAWAL_FEE_BUMP_PERCENT",
          defaultWithdrawalFeeBumpPercent,
          withdrawalFeeBumpPercentMin,
          100,
        ),
        maxFeePerGasCap,
      },
    },
    withdrawalKeyFile,
  };
}

/** "1.5" gwei → 1,500,000,000 wei, exactly; undefined when it is not a decimal with ≤ 9 decimals. */
function gweiToWei(gwei: string): bigint | undefined {
  const match = /^(\d{1,12})(?:\.(\d{1,9}))?$/.exec(gwei);
  if (match === null) return undefined;
  return BigInt(match[1]!) * weiPerGwei + BigInt((match[2] ?? "").padEnd(9, "0"));
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
