// Public market-data fan-out: 5,000 subscribers of /ws/market on one market while the book changes
// 1,000 times a second. Reports delivered messages per second, delivery latency (p50/p99, from the
// commit time of the oldest change a message carries to its arrival) and the server's memory over
// the run.
//
// The server (the whole platform) runs in a child process and the subscribers here, so each gets a
// core of a 2-core machine. The book changes are LIMIT orders placed and cancelled through the
// engine in the server process (no HTTP in the way: this measures the fan-out, not the REST API).
// Baseline, measured in the same run: one subscriber under the same load. The ratio is the fan-out
// efficiency: delivered / (single-subscriber rate × subscribers), 1.0 when no subscriber falls behind.
// Loopback only, bounded (subscribers, duration, a hard deadline), self-stopping.
// BENCH_WS_SECONDS shortens the main phase (default 60); BENCH_WS_SUBSCRIBERS the fan-out (5,000).

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { WebSocket } from "ws";
import { limitOrderCommand } from "../src/core/commands.js";
import { createMarketCommand } from "../src/core/exchange.js";
import { setPreFramedWrites } from "../src/realtime/fanout.js";
import { startBenchPlatform } from "./lib/server-process.js";

const subscribersCount = Number(process.env.BENCH_WS_SUBSCRIBERS ?? 5_000);
const mainPhaseSeconds = Number(process.env.BENCH_WS_SECONDS ?? 60);
const baselinePhaseSeconds = 5;
const bookChangesPerSecond = 1_000;
/** A tick submits the changes that are due (10 every 10 ms), at most this many when catching up. */
const changesPerTickMax = 1_000;
const tickMs = 10;
/** Resting orders the load keeps on the book: it alternates placing and cancelling around this. */
const restingOrdersTarget = 400;
const connectConcurrency = 250;
const latencyBucketsMs = 10_000;
/**
 * `raw` (default): a minimal RFC 6455 client on a TCP socket (handshake, unmasked server frames,
 * masked pong and subscribe), so the 5,000 subscribers cost the subscriber process as little as
 * possible and the figures say more about the server. `ws`: the ws library's client.
 */
const subscriberClient = process.env.BENCH_WS_CLIENT === "ws" ? "ws" : "raw";
const hardDeadlineMs = (mainPhaseSeconds + baselinePhaseSeconds + 180) * 1000;

type ServerMessage =
  | { kind: "ready"; publicUrl: string; assetId: string }
  | { kind: "load-done"; changes: number; memory: MemorySample[]; cpuMs: number; elapsedMs: number };
type ParentMessage = { kind: "load"; seconds: number } | { kind: "stop" };
interface MemorySample {
  readonly atS: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
}

// ------------------------------------------------------------------ server process

async function serve(): Promise<void> {
  const send = (message: ServerMessage) => process.send?.(message);
  // The parent is the only reason to exist: when it goes, so does the server.
  process.on("disconnect", () => process.exit(0));
  // BENCH_WS_PUBLIC_SEND=1: every message through ws's public send (what the pre-framed path saves).
  if (process.env.BENCH_WS_PUBLIC_SEND === "1") setPreFramedWrites(false);
  const bench = await startBenchPlatform("predex-bench-ws-");
  const { platform } = bench;
  const engine = platform.deps.engine;
  const submitted = async (command: Parameters<typeof engine.submit>[0]) => {
    const result = await engine.submit(command);
    if (!result.ok) throw new Error(`bench set-up refused: ${JSON.stringify(result.rejection)}`);
    return result;
  };
  await submitted(createMarketCommand({ title: "Bench market" }));
  const market = await engine.read((state) => [...state.markets.values()][0]!);
  await submitted({ type: "OpenMarket", marketId: market.marketId });
  const outcomeId = market.outcomeIds[0]!;
  const { yesOptionId, assetId } = await engine.read((state) => {
    const yes = state.options.get(state.outcomes.get(outcomeId)!.optionIds[0])!;
    return { yesOptionId: yes.optionId, assetId: yes.assetId };
  });
  const userId = 1;
  await submitted({ type: "Deposit", userId, amount: 10n ** 18n, txHash: "0xbench" });
  send({ kind: "ready", publicUrl: platform.addresses.public, assetId });

  process.on("message", async (message: ParentMessage) => {
    if (message.kind === "stop") {
      await bench.close();
      process.exit(0);
    }
    const resting: number[] = [];
    let changes = 0;
    let random = 12345;
    const next = () => {
      random = (Math.imul(random, 1664525) + 1013904223) >>> 0;
      return random / 2 ** 32;
    };
    const memory: MemorySample[] = [];
    const startedMs = Date.now();
    const cpuStart = process.cpuUsage();
    const sampler = setInterval(() => {
      const usage = process.memoryUsage();
      memory.push({
        atS: Math.round((Date.now() - startedMs) / 1000),
        rssMb: Math.round(usage.rss / 1e5) / 10,
        heapUsedMb: Math.round(usage.heapUsed / 1e5) / 10,
      });
    }, 1_000);
    const endMs = startedMs + message.seconds * 1000;
    // Bids only, 0.01–0.49: the book changes on every command and never trades, so it stays bounded.
    // Catch up with the clock, so late timer ticks on a busy machine do not lower the rate.
    const tick = () => {
      const due = Math.floor(((Date.now() - startedMs) * bookChangesPerSecond) / 1000) - changes;
      for (let index = 0; index < Math.min(due, changesPerTickMax); index += 1) {
        changes += 1;
        if (resting.length > restingOrdersTarget || (resting.length > 0 && next() < 0.5)) {
          const orderId = resting.splice(Math.floor(next() * resting.length), 1)[0]!;
          void engine.submit({ type: "CancelOrder", userId, orderId }).catch(() => undefined);
        } else {
          const priceCents = 1 + Math.floor(next() * 49);
          void engine
            .submit(
              limitOrderCommand({
                userId,
                marketId: market.marketId,
                outcomeId,
                optionId: yesOptionId,
                side: "BUY",
                limitPrice: BigInt(priceCents) * 1_000_000n,
                shares: BigInt(1 + Math.floor(next() * 50)) * 100_000_000n,
              }),
            )
            .then((result) => {
              if (result.ok)
                resting.push(
                  Number(result.events[0] && "orderId" in result.events[0] ? result.events[0].orderId : 0),
                );
            })
            .catch(() => undefined);
        }
      }
    };
    const timer = setInterval(() => {
      if (Date.now() >= endMs) {
        clearInterval(timer);
        clearInterval(sampler);
        const cpu = process.cpuUsage(cpuStart);
        send({
          kind: "load-done",
          changes,
          memory,
          cpuMs: Math.round((cpu.user + cpu.system) / 1000),
          elapsedMs: Date.now() - startedMs,
        });
        return;
      }
      tick();
    }, tickMs);
  });
}

// ------------------------------------------------------------------ subscriber process

interface PhaseResult {
  /** The subscriber process: its CPU share and event-loop delay p99 during the phase. */
  readonly clientCpuShare: number;
  readonly clientLoopDelayP99Ms: number;
  readonly subscribers: number;
  readonly messages: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly disconnects: number;
  readonly server: Extract<ServerMessage, { kind: "load-done" }>;
}

async function measure(): Promise<void> {
  const deadline = setTimeout(() => {
    process.stderr.write("bench:ws hard deadline reached\n");
    process.exit(2);
  }, hardDeadlineMs);
  deadline.unref();
  const child = spawn(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--serve"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const inbox: ServerMessage[] = [];
  const waiters: ((message: ServerMessage) => void)[] = [];
  child.on("message", (message: ServerMessage) => {
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else inbox.push(message);
  });
  const nextMessage = () =>
    new Promise<ServerMessage>((resolve) => {
      const queued = inbox.shift();
      if (queued) resolve(queued);
      else waiters.push(resolve);
    });
  try {
    const ready = await nextMessage();
    if (ready.kind !== "ready") throw new Error("server did not start");
    const url = new URL("/ws/market", ready.publicUrl.replace(/^http/, "ws")).href;
    const loadAverageBefore = (await import("node:os")).loadavg();

    const baseline = await phase(child, nextMessage, url, ready.assetId, 1, baselinePhaseSeconds);
    const main = await phase(child, nextMessage, url, ready.assetId, subscribersCount, mainPhaseSeconds);
    const loadAverageAfter = (await import("node:os")).loadavg();

    const value = Math.round(main.messages / main.seconds);
    const baselineRate = baseline.messages / baseline.seconds;
    const memory = main.server.memory;
    const window = Math.max(1, Math.min(10, Math.floor(memory.length / 3)));
    const average = (samples: MemorySample[], field: "rssMb" | "heapUsedMb") =>
      Math.round(
        (samples.reduce((sum, sample) => sum + sample[field], 0) / Math.max(1, samples.length)) * 10,
      ) / 10;
    const first = memory.slice(0, window);
    const last = memory.slice(-window);
    const result = {
      bench: "ws",
      unit: "messages/s",
      value,
      baseline: {
        what: "one subscriber under the same 1,000 book changes/s",
        messages_per_s: Math.round(baselineRate * 10) / 10,
        p50_ms: baseline.p50Ms,
        p99_ms: baseline.p99Ms,
      },
      ratio: Math.round((value / (baselineRate * subscribersCount)) * 1000) / 1000,
      p50_ms: main.p50Ms,
      p99_ms: main.p99Ms,
      max_ms: main.maxMs,
      subscribers: subscribersCount,
      subscriber_client: subscriberClient,
      seconds: mainPhaseSeconds,
      book_changes_per_s: Math.round(main.server.changes / (main.server.elapsedMs / 1000)),
      disconnects: main.disconnects,
      server_cpu_share: Math.round((main.server.cpuMs / main.server.elapsedMs) * 100) / 100,
      subscriber_cpu_share: main.clientCpuShare,
      subscriber_loop_delay_p99_ms: main.clientLoopDelayP99Ms,
      memory: {
        rss_mb_first_10s: average(first, "rssMb"),
        rss_mb_last_10s: average(last, "rssMb"),
        rss_mb_max: Math.max(...memory.map((sample) => sample.rssMb)),
        heap_mb_first_10s: average(first, "heapUsedMb"),
        heap_mb_last_10s: average(last, "heapUsedMb"),
        heap_mb_max: Math.max(...memory.map((sample) => sample.heapUsedMb)),
        samples: memory.length,
      },
      load_average: {
        before: loadAverageBefore.map((x) => Math.round(x * 100) / 100),
        after: loadAverageAfter.map((x) => Math.round(x * 100) / 100),
      },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    child.send({ kind: "stop" } satisfies ParentMessage);
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

const timestampKey = Buffer.from('"timestamp":"');
const digitZero = 48;

/** The `timestamp` (ms) of a message, read from the bytes: the subscriber process must stay cheap per message. */
function timestampOf(data: Buffer): number | undefined {
  const at = data.lastIndexOf(timestampKey);
  if (at === -1) return undefined;
  let value = 0;
  for (let index = at + timestampKey.length; index < data.length; index += 1) {
    const digit = data[index]! - digitZero;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return value;
}

async function phase(
  child: ReturnType<typeof spawn>,
  nextMessage: () => Promise<ServerMessage>,
  url: string,
  assetId: string,
  count: number,
  seconds: number,
): Promise<PhaseResult> {
  const histogram = new Uint32Array(latencyBucketsMs + 1);
  let messages = 0;
  let counting = false;
  let disconnects = 0;
  let maxMs = 0;
  const sockets: { terminate(): void }[] = [];
  const subscribe = JSON.stringify({ type: "market", assets_ids: [assetId] });
  const onText = (data: Buffer) => {
    if (!counting) return;
    const timestamp = timestampOf(data);
    if (timestamp === undefined) return;
    messages += 1;
    const latencyMs = Math.max(0, Date.now() - timestamp);
    if (latencyMs > maxMs) maxMs = latencyMs;
    histogram[Math.min(latencyBucketsMs, Math.round(latencyMs))]! += 1;
  };
  const onClose = () => {
    if (counting) disconnects += 1;
  };
  const connectOne = () =>
    subscriberClient === "ws"
      ? new Promise<void>((resolve, reject) => {
          const socket = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
          socket.on("open", () => {
            socket.send(subscribe);
            resolve();
          });
          socket.on("error", reject);
          socket.on("close", onClose);
          socket.on("message", onText);
          sockets.push({ terminate: () => socket.terminate() });
        })
      : rawSubscriber(url, subscribe, onText, onClose).then((socket) => {
          sockets.push(socket);
        });
  for (let started = 0; started < count; started += connectConcurrency) {
    await Promise.all(Array.from({ length: Math.min(connectConcurrency, count - started) }, connectOne));
  }
  // Let the initial `book` events drain before measuring.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  counting = true;
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const cpuStart = process.cpuUsage();
  const phaseStartMs = Date.now();
  child.send({ kind: "load", seconds } satisfies ParentMessage);
  const done = await nextMessage();
  if (done.kind !== "load-done") throw new Error("unexpected server message");
  // Messages already in flight when the load stopped still count, briefly.
  await new Promise((resolve) => setTimeout(resolve, 200));
  counting = false;
  loopDelay.disable();
  const cpu = process.cpuUsage(cpuStart);
  const clientCpuShare =
    Math.round(((cpu.user + cpu.system) / 1000 / (Date.now() - phaseStartMs)) * 100) / 100;
  for (const socket of sockets) socket.terminate();
  const percentile = (fraction: number) => {
    const target = Math.ceil(messages * fraction);
    let seen = 0;
    for (let bucket = 0; bucket < histogram.length; bucket += 1) {
      seen += histogram[bucket]!;
      if (seen >= target) return bucket;
    }
    return latencyBucketsMs;
  };
  return {
    clientCpuShare,
    clientLoopDelayP99Ms: Math.round(loopDelay.percentile(99) / 1e6),
    subscribers: count,
    messages,
    seconds: done.elapsedMs / 1000,
    p50Ms: percentile(0.5),
    p99Ms: percentile(0.99),
    maxMs: Math.round(maxMs),
    disconnects,
    server: done,
  };
}

/**
 * Every raw subscriber reads into this one buffer (net's `onread`): no Buffer per read and no stream
 * machinery per chunk, which is most of what 5,000 sockets cost a Node process. A frame cut by a
 * read boundary is copied out and kept until the rest arrives.
 */
const sharedReadBuffer = Buffer.allocUnsafe(256 * 1024);

/** A bare WebSocket subscriber: enough of RFC 6455 to subscribe, receive text frames and answer pings. */
function rawSubscriber(
  url: string,
  subscribe: string,
  onText: (payload: Buffer) => void,
  onClose: () => void,
): Promise<{ terminate(): void }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    let handshaken = false;
    let pending: Buffer | undefined;
    const onRead = (bytesRead: number, readBuffer: Buffer): void => {
      let data = readBuffer.subarray(0, bytesRead);
      if (pending !== undefined) {
        data = Buffer.concat([pending, data]);
        pending = undefined;
      }
      if (!handshaken) {
        const end = data.indexOf("\r\n\r\n");
        if (end === -1) {
          pending = Buffer.from(data);
          return;
        }
        if (!data.subarray(0, 12).toString("latin1").includes(" 101")) {
          reject(new Error(`handshake refused: ${data.subarray(0, end).toString("latin1")}`));
          socket.destroy();
          return;
        }
        handshaken = true;
        data = data.subarray(end + 4);
        socket.write(clientFrame(0x1, Buffer.from(subscribe)));
        resolve({ terminate: () => socket.destroy() });
      }
      // Frames from a server are never masked (RFC 6455 §5.1).
      let at = 0;
      while (data.length - at >= 2) {
        const opcode = data[at]! & 0x0f;
        let length = data[at + 1]! & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (data.length - at < 4) break;
          length = data.readUInt16BE(at + 2);
          offset = 4;
        } else if (length === 127) {
          if (data.length - at < 10) break;
          length = Number(data.readBigUInt64BE(at + 2));
          offset = 10;
        }
        if (data.length - at < offset + length) break;
        const payload = data.subarray(at + offset, at + offset + length);
        at += offset + length;
        if (opcode === 0x1) onText(payload);
        else if (opcode === 0x9) socket.write(clientFrame(0xa, payload));
        else if (opcode === 0x8) socket.destroy();
      }
      // The shared buffer is overwritten by the next read: keep a copy of an unfinished frame.
      if (at < data.length) pending = Buffer.from(data.subarray(at));
    };
    const socket = connect({
      port: Number(target.port),
      host: target.hostname,
      noDelay: true,
      onread: {
        buffer: sharedReadBuffer,
        callback: (bytesRead) => {
          onRead(bytesRead, sharedReadBuffer);
          return true;
        },
      },
    });
    socket.on("connect", () => {
      socket.write(
        `GET ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    socket.on("error", reject);
    socket.on("close", onClose);
  });
}

/** A client frame: FIN, the opcode, and the payload masked as RFC 6455 requires of clients. */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const header =
    payload.length < 126
      ? Buffer.from([0x80 | opcode, 0x80 | payload.length])
      : Buffer.from([0x80 | opcode, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const masked = Buffer.alloc(payload.length);
  for (let index = 0; index < payload.length; index += 1) masked[index] = payload[index]! ^ mask[index & 3]!;
  return Buffer.concat([header, mask, masked]);
}

// Dispatch last, so every module-level constant above is initialised first.
if (process.argv.includes("--serve")) await serve();
else await measure();
