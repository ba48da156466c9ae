// A local EVM network for trying and testing predex's chain wallet: Hardhat 2's network (an npm
// package, so always at hand, offline) in a child process on a loopback port, with the test USDT
// (TestUSDT.sol: 6 decimals, mintable) deployed and minted to a funded key. `npm run chain:dev`
// (dev.ts), the chain tests and `npm run bench:chain` all start it through startDevnet.

import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  type Transport,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import testUsdtArtifact from "./TestUSDT.json" with { type: "json" };

export const testUsdtAbi = testUsdtArtifact.abi;
const here = dirname(fileURLToPath(import.meta.url));
const configPath = join(here, "hardhat.config.cjs");

/**
 * Hardhat's default accounts (from its public test mnemonic "test test … junk"), each funded with
 * 10,000 ETH on the devnet. Anyone knows these keys: never use them on a real network.
 */
export const devnetAccountKeys: readonly Hex[] = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
];

/** The test USDT minted to the funded key at start: 1,000,000,000 USDT in 6-decimal units. */
export const devnetFundedUsdtUnits = 1_000_000_000n * 1_000_000n;

export interface DevnetOptions {
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Mine a block every this many ms with nothing sent; 0 turns interval mining off (tests). */
  readonly intervalMiningMs?: number;
}

export interface Devnet {
  readonly rpcUrl: string;
  readonly usdtContract: Address;
  /** Holds test USDT and ETH: the deployer, account 0. */
  readonly fundedKey: Hex;
  readonly chain: Chain;
  readonly publicClient: PublicClient<Transport, Chain>;
  /** The Hardhat node's process id (the caller may end only this process). */
  readonly pid: number;
  /** A raw JSON-RPC call (evm_mine, evm_snapshot, evm_revert, hardhat_dropTransaction, …). */
  rpc<Result = unknown>(method: string, params?: unknown[]): Promise<Result>;
  /** Mines `count` blocks at once (hardhat_mine). */
  mine(count?: number): Promise<void>;
  stop(): Promise<void>;
}

const startTimeoutMs = 60_000;

export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port === undefined || options.port === 0 ? await freePort(host) : options.port;
  const node = await spawnHardhatNode(host, port);
  const rpcUrl = `http://${host}:${port}`;
  try {
    const chain = { ...hardhat, rpcUrls: { default: { http: [rpcUrl] } } } as Chain;
    const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
    const rpc = <Result>(method: string, params: unknown[] = []) =>
      publicClient.request({ method: method as never, params: params as never }) as Promise<Result>;
    if (options.intervalMiningMs !== undefined)
      await rpc("evm_setIntervalMining", [options.intervalMiningMs]);
    const fundedKey = devnetAccountKeys[0]!;
    const account = privateKeyToAccount(fundedKey);
    const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
    const deployHash = await wallet.deployContract({
      abi: testUsdtAbi,
      bytecode: testUsdtArtifact.bytecode as Hex,
    });
    const deployed = await publicClient.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 50 });
    const usdtContract = deployed.contractAddress;
    if (usdtContract === null || usdtContract === undefined) throw new Error("TestUSDT was not deployed");
    const minted = await wallet.writeContract({
      address: usdtContract,
      abi: testUsdtAbi,
      functionName: "mint",
      args: [account.address, devnetFundedUsdtUnits],
    });
    await publicClient.waitForTransactionReceipt({ hash: minted, pollingInterval: 50 });
    return {
      rpcUrl,
      usdtContract,
      fundedKey,
      chain,
      publicClient,
      pid: node.pid!,
      rpc,
      async mine(count = 1) {
        await rpc("hardhat_mine", [`0x${count.toString(16)}`]);
      },
      stop: () => stopProcess(node),
    };
  } catch (error) {
    await stopProcess(node);
    throw error;
  }
}

function spawnHardhatNode(host: string, port: number): Promise<ChildProcess> {
  const cliPath = join(
    dirname(createRequire(import.meta.url).resolve("hardhat/package.json")),
    "internal/cli/cli.js",
  );
  const child = spawn(
    process.execPath,
    [cliPath, "node", "--hostname", host, "--port", String(port), "--config", configPath],
    {
      cwd: here,
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => fail(new Error(`hardhat node did not start in ${startTimeoutMs} ms`)),
      startTimeoutMs,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${error.message}\n${output.slice(-2000)}`));
    };
    const onData = (chunk: Buffer) => {
      // Keep reading for as long as the node runs: a full pipe would stall its logging.
      if (output.length < 64_000) output += chunk.toString("utf8");
      if (output.includes("Started HTTP and WebSocket JSON-RPC server")) {
        clearTimeout(timer);
        output = "";
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`hardhat node exited with code ${code}`)));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
