// Turning measured phases into the figures the HTTP benches print and put in their JSON line.

import type { PhaseResult } from "./load.js";

export interface PhaseSummary {
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest: number;
  /** The load generator's CPU time per request. */
  readonly clientCpuUsPerRequest: number;
  readonly failures: number;
}

/** One figure over several phases of the same operation, as if they were one long phase. */
export function summarizePhases(phases: readonly PhaseResult[]): PhaseSummary {
  const requests = phases.reduce((sum, phase) => sum + phase.requests, 0);
  return {
    ...summarizeTimedPhases(phases.map((phase) => ({ ...phase, operations: phase.requests }))),
    cpuUsPerRequest: phases.reduce((sum, phase) => sum + phase.serverCpuUs, 0) / Math.max(1, requests),
    clientCpuUsPerRequest: phases.reduce((sum, phase) => sum + phase.clientCpuUs, 0) / Math.max(1, requests),
    failures: phases.reduce((sum, phase) => sum + phase.failures, 0),
  };
}

/** A timed phase of a bench that runs operations itself (no server): how many, how long, each latency. */
export interface TimedPhase {
  readonly operations: number;
  readonly elapsedMs: number;
  readonly latenciesMs: readonly number[];
}

/** Operations per second and latency percentiles over several timed phases, as if they were one. */
export function summarizeTimedPhases(phases: readonly TimedPhase[]): {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
} {
  const operations = phases.reduce((sum, phase) => sum + phase.operations, 0);
  const elapsedMs = phases.reduce((sum, phase) => sum + phase.elapsedMs, 0);
  const latencies = phases.flatMap((phase) => phase.latenciesMs).sort((a, b) => a - b);
  return {
    perSecond: (operations * 1000) / elapsedMs,
    p50Ms: percentileOfSorted(latencies, 50),
    p99Ms: percentileOfSorted(latencies, 99),
  };
}

/** The nearest-rank percentile of ascending values; 0 when there are none. */
export function percentileOfSorted(sorted: readonly number[], percent: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((percent / 100) * sorted.length))] ?? 0;
}

/** Rounds to `digits` decimals, for the JSON line. */
export function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}
