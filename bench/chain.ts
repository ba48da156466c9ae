// bench:chain — the deposit watcher against the devnet (Hardhat's network on a loopback port):
//  1. Credit latency: a transfer to a deposit address, then the blocks that complete its
//     confirmations (hardhat_mine); the time from that block's existence to the credit in the
//     engine (the watcher's onCredited hook, same process). Default poll (250 ms), 12 confirmations.
//     Each transfer follows the previous credit at once, so it lands just after a round: close to
//     the worst case of a full poll interval, not its average.
//  2. Catch-up: predex stopped, 10,000 blocks mined (with deposits among them), predex started on
//     the same data dir; the time until its cursor reaches the head and every deposit is credited.
//  Both with 1 watched address and with 1,000, to show that watching 1,000 does not slow either.
// The JSON line's value is the catch-up rate counted from the call that starts predex (engine
// recovery and listeners included); its baseline is the target, 10,000 blocks in 10 s (so a ratio
// above 1 meets it). Raw eth_getLogs over the same blocks, ranges and 1,000 addresses from a bare
// viem client (what the node itself serves) is run side by side and reported beside it.
// Bounded: fixed counts, every step awaited, stops itself.
// One JSON line at the end. Usage: npm run bench:chain [-- --deposits 30 --blocks 10000 --poll-ms 500]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { getLogsBlocksMax } from "../src/chain/deposit-policy.js";
import { type Devnet, startDevnet, testUsdtAbi } from "../src/chain/devnet/devnet.js";
import { transferEvent } from "../src/chain/erc20.js";
import { defaultChainPollMs } from "../src/config/chain-config.js";
import { loadConfig } from "../src/config.js";
import { type Platform, startPlatform } from "../src/server.js";
import { depositCursorName } from "../src/store/chain-store.js";
import { accountKeyOf } from "../src/wallet/demo-deposit-key.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const { values } = parseArgs({
  options: {
    deposits: { type: "string", default: "30" },
    blocks: { type: "string", default: "10000" },
    "poll-ms": { type: "string", default: String(defaultChainPollMs) },
  },
});
const latencyDeposits = Number(values.deposits);
const catchUpBlocks = Number(values.blocks);
const confirmations = 12;
const pollMs = Number(values["poll-ms"]);
const addressesMany = 1_000;
const catchUpDeposits = 20;
const catchUpTimeoutMs = 120_000;
const xpub = accountKeyOf(
  "legal winner thank year wave sausage worth useful legal winner thank yellow",
).publicExtendedKey;

interface Credit {
  readonly key: string;
  readonly atMs: number;
}

const devnet = await startDevnet({ intervalMiningMs: 0 });
const sender = createWalletClient({
  account: privateKeyToAccount(devnet.fundedKey),
  chain: devnet.chain,
  transport: http(devnet.rpcUrl),
});
let sent = 0;

async function transfer(to: string, units: bigint): Promise<string> {
  const hash = await sender.writeContract({
    address: devnet.usdtContract,
    abi: testUsdtAbi,
    functionName: "transfer",
    args: [to as `0x${string}`, units],
  });
  sent += 1;
  return hash;
}

async function startBenchPlatform(dataDir: string, credits: Credit[]): Promise<Platform> {
  const config = loadConfig({
    PREDEX_DATA_DIR: dataDir,
    PREDEX_HOST: "127.0.0.1",
    PREDEX_PORT: "0",
    PREDEX_PUBLIC_PORT: "0",
    PREDEX_LEGACY_PORT: "0",
    PREDEX_ADMIN_PORT: "0",
    PREDEX_LOG_LEVEL: "silent",
    PREDEX_CHAIN_RPC_URL: devnet.rpcUrl,
    PREDEX_USDT_CONTRACT: devnet.usdtContract,
    PREDEX_CONFIRMATIONS: String(confirmations),
    PREDEX_DEPOSIT_XPUB: xpub,
    PREDEX_CHAIN_POLL_MS: String(pollMs),
  });
  return startPlatform(config, {
    logger: pino({ level: "silent" }),
    onChainDepositCredited: (deposit) =>
      credits.push({ key: `${deposit.txHash}:${deposit.logIndex}`, atMs: performance.now() }),
  });
}

async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`bench:chain: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

interface Scenario {
  readonly latenciesMs: number[];
  readonly catchUpMs: number;
  readonly catchUpFromStartMs: number;
  readonly addresses: string[];
}

async function scenario(addressCount: number): Promise<Scenario> {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-bench-chain-"));
  const credits: Credit[] = [];
  let platform = await startBenchPlatform(dataDir, credits);
  try {
    const addresses: string[] = [];
    for (let index = 0; index < addressCount; index += 1) {
      addresses.push(await platform.deps.depositAddresses.addressOf(index + 1, Date.now()));
    }
    // Let the watcher take its first round (cursor set at the head).
    await until(() => platform.chainWallet?.watcher.head !== undefined, "the first round", 10_000);

    const latenciesMs: number[] = [];
    for (let index = 0; index < latencyDeposits; index += 1) {
      const to = addresses[(index * 7919) % addresses.length]!;
      const hash = (await transfer(to, 5_000_000n)).toLowerCase();
      // The transfer's own block is confirmation 1; these complete the rest.
      await devnet.mine(confirmations - 1);
      const completedAtMs = performance.now();
      await until(() => credits.some((credit) => credit.key === `${hash}:0`), "a credit", 10_000);
      latenciesMs.push(credits.find((credit) => credit.key === `${hash}:0`)!.atMs - completedAtMs);
    }

    // Catch-up: stopped, the chain moves on by catchUpBlocks with deposits spread over it.
    await platform.close();
    const expected = new Set<string>();
    const gap = Math.floor(catchUpBlocks / catchUpDeposits) - 1;
    for (let index = 0; index < catchUpDeposits; index += 1) {
      const hash = await transfer(
        addresses[(index * 104_729) % addresses.length]!,
        1_000_000n + BigInt(index),
      );
      expected.add(`${hash.toLowerCase()}:0`);
      await devnet.mine(gap);
    }
    const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 });
    credits.length = 0;
    const startedAtMs = performance.now();
    platform = await startBenchPlatform(dataDir, credits);
    const listeningAtMs = performance.now();
    const store = platform.chainWallet!.store;
    await until(
      async () =>
        ((await store.cursor(depositCursorName)) ?? 0n) >= head &&
        credits.filter((c) => expected.has(c.key)).length === expected.size,
      "the catch-up",
      catchUpTimeoutMs,
    );
    const doneAtMs = performance.now();
    return {
      latenciesMs: latenciesMs.sort((a, b) => a - b),
      catchUpMs: doneAtMs - listeningAtMs,
      catchUpFromStartMs: doneAtMs - startedAtMs,
      addresses,
    };
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The node's own rate: getLogs over the last catchUpBlocks blocks, same ranges and addresses. */
async function rawGetLogs(addresses: readonly string[]): Promise<{ ms: number; logs: number }> {
  const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 });
  const from = head - BigInt(catchUpBlocks) + 1n;
  const startedAtMs = performance.now();
  let logs = 0;
  for (let start = from; start <= head; start += getLogsBlocksMax) {
    const end = start + getLogsBlocksMax - 1n < head ? start + getLogsBlocksMax - 1n : head;
    const found = await devnet.publicClient.getLogs({
      address: devnet.usdtContract,
      event: transferEvent,
      args: { to: addresses as `0x${string}`[] },
      fromBlock: start,
      toBlock: end,
    });
    logs += found.length;
  }
  return { ms: performance.now() - startedAtMs, logs };
}

let result: { one: Scenario; many: Scenario; baseline: { ms: number; logs: number } };
try {
  const one = await scenario(1);
  const many = await scenario(addressesMany);
  const baseline = await rawGetLogs(many.addresses);
  result = { one, many, baseline };
} finally {
  await stopDevnet(devnet);
}

async function stopDevnet(node: Devnet): Promise<void> {
  await node.stop();
}

const { one, many, baseline } = result;
const p = (sorted: number[], percent: number) => round(percentileOfSorted(sorted, percent), 1);
const catchUpPerSecond = (catchUpBlocks * 1000) / many.catchUpFromStartMs;
const targetPerSecond = 10_000 / 10;
const rawPerSecond = (catchUpBlocks * 1000) / baseline.ms;
console.log(
  `credit latency after the confirming block, 1 address: p50 ${p(one.latenciesMs, 50)} ms, p99 ${p(one.latenciesMs, 99)} ms, max ${p(one.latenciesMs, 100)} ms`,
);
console.log(
  `credit latency after the confirming block, ${addressesMany} addresses: p50 ${p(many.latenciesMs, 50)} ms, p99 ${p(many.latenciesMs, 99)} ms, max ${p(many.latenciesMs, 100)} ms`,
);
console.log(
  `catch-up of ${catchUpBlocks} blocks after a restart, from the call that starts predex: 1 address ${round(one.catchUpFromStartMs / 1000, 2)} s, ${addressesMany} addresses ${round(many.catchUpFromStartMs / 1000, 2)} s`,
);
console.log(
  `raw eth_getLogs over the same blocks and addresses: ${round(baseline.ms / 1000, 2)} s (${baseline.logs} logs)`,
);
console.log(
  JSON.stringify({
    bench: "chain",
    unit: "blocks/s",
    value: round(catchUpPerSecond, 0),
    baseline: { name: "target: 10,000 blocks caught up in 10 s", value: targetPerSecond },
    ratio: round(catchUpPerSecond / targetPerSecond, 3),
    p50_ms: p(many.latenciesMs, 50),
    p99_ms: p(many.latenciesMs, 99),
    latency_one_address_p50_ms: p(one.latenciesMs, 50),
    latency_one_address_p99_ms: p(one.latenciesMs, 99),
    catch_up_blocks: catchUpBlocks,
    catch_up_s: round(many.catchUpFromStartMs / 1000, 3),
    catch_up_after_listening_s: round(many.catchUpMs / 1000, 3),
    catch_up_one_address_s: round(one.catchUpFromStartMs / 1000, 3),
    raw_get_logs_blocks_per_s: round(rawPerSecond, 0),
    addresses_watched: addressesMany,
    confirmations,
    poll_ms: pollMs,
    transfers_sent: sent,
  }),
);
