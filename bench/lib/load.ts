// The load generator of the HTTP benches: a fixed number of concurrent keep-alive clients, each
// sending one request after another until the phase's time or request cap runs out, and the
// latency of every request. The server's CPU time is read around each phase.

import { type Agent, request } from "node:http";
import type { BenchServer } from "./server-process.js";

export interface PhaseResult {
  readonly requests: number;
  readonly failures: number;
  readonly elapsedMs: number;
  readonly latenciesMs: number[];
  /** The server process's CPU time spent during the phase. */
  readonly serverCpuUs: number;
  /**
   * This process's (the load generator's) CPU time during the phase: on a 2-core machine the
   * client shares the cores with the server, so its cost bounds what the server can be shown to do.
   */
  readonly clientCpuUs: number;
}

export interface ClientLoad<Prepared> {
  readonly clients: number;
  readonly durationMs: number;
  /** The phase ends at this many requests, across all clients, even if time is left. */
  readonly requestsMax: number;
  /**
   * Builds a client's next request (signing it, for instance). It runs outside the timed span so
   * that the load generator's own work stays out of the latency. `sequence` counts from 0 per client.
   */
  prepare(clientIndex: number, sequence: number): Prepared;
  /** Sends the request; the time until it resolves is its latency. True when it succeeded. */
  send(prepared: Prepared): Promise<boolean>;
}

/** Runs one phase of load and reads the server's CPU time before and after it. */
export async function measurePhase<Prepared>(
  server: BenchServer<unknown>,
  load: ClientLoad<Prepared>,
): Promise<PhaseResult> {
  const cpuBeforeUs = await server.serverCpuUs();
  const clientBefore = process.cpuUsage();
  const result = await runClients(load);
  const client = process.cpuUsage(clientBefore);
  return {
    ...result,
    serverCpuUs: (await server.serverCpuUs()) - cpuBeforeUs,
    clientCpuUs: client.user + client.system,
  };
}

async function runClients<Prepared>(
  load: ClientLoad<Prepared>,
): Promise<Omit<PhaseResult, "serverCpuUs" | "clientCpuUs">> {
  const latenciesMs: number[] = [];
  let requests = 0;
  let failures = 0;
  const startedAt = performance.now();
  const deadline = startedAt + load.durationMs;
  const client = async (clientIndex: number) => {
    for (let sequence = 0; performance.now() < deadline && requests < load.requestsMax; sequence += 1) {
      const prepared = load.prepare(clientIndex, sequence);
      const sentAt = performance.now();
      const ok = await load.send(prepared);
      latenciesMs.push(performance.now() - sentAt);
      requests += 1;
      if (!ok) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: load.clients }, (_unused, index) => client(index)));
  return { requests, failures, elapsedMs: performance.now() - startedAt, latenciesMs };
}

export interface OutgoingRequest {
  readonly method: "GET" | "POST";
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
}

/** The answer's HTTP status; the body is drained unread. */
export function sendForStatus(url: URL, outgoing: OutgoingRequest, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: outgoing.method, headers: outgoing.headers, agent }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    sent.on("error", reject);
    sent.end(outgoing.body);
  });
}

/** True when the answer is HTTP 200 with an envelope of code 0. */
export function sendExpectingCodeZero(url: URL, outgoing: OutgoingRequest, agent: Agent): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: outgoing.method, headers: outgoing.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const head = Buffer.concat(chunks).subarray(0, 16).toString("utf8");
        resolve(response.statusCode === 200 && head.startsWith('{"code":0'));
      });
    });
    sent.on("error", reject);
    sent.end(outgoing.body);
  });
}
