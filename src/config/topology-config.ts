// The settings of a node in a PostgreSQL deployment (docs/deployment.md), beyond PREDEX_DATABASE_URL:
//   PREDEX_ENGINE_HOST            where an engine node's command port listens (default 127.0.0.1:
//                                 API nodes on the same machine; a private address across machines)
//   PREDEX_ENGINE_PORT            its port; default 0, any free port (several nodes on one machine)
//   PREDEX_ENGINE_ADVERTISE_HOST  the host API nodes use to reach it (default PREDEX_ENGINE_HOST, or
//                                 the machine's hostname when that is a wildcard address)
//   PREDEX_ENGINE_LEASE_MS        a leader that cannot renew its lease this long may be replaced (5000)
//   PREDEX_FAILOVER_DEADLINE_MS   how long an API node holds a command while no leader answers,
//                                 before it answers what it knows: nothing was done (502/2002) or
//                                 the outcome is unknown (504/2001) (20000: outlasts an engine
//                                 takeover and a database restart or promote; docs/decisions.md)
//   PREDEX_ENGINE_PROBE_PORT      where an engine node (`serve --role engine`) answers GET /healthz and
//                                 GET /readyz, on PREDEX_ADMIN_HOST; default 0, any free port (printed)
// Nothing here is needed by hand: the defaults let any number of nodes run side by side.

import { hostname } from "node:os";

/**
 * An API node holds a command this long while no leader answers. It must outlast what a takeover
 * takes, so that the answer is the command's own and not "unknown": an engine takeover (the 5 s
 * lease, then well under a second), a PostgreSQL restart (seconds) and a scripted promote of a
 * standby (10-15 s). Clients wait longer than this (the SDK's default timeout is 30 s; spec 001's
 * requests end after 30 s), so the answer reaches them.
 */
export const defaultFailoverDeadlineMs = 20_000;

export interface TopologyConfig {
  readonly engineHost: string;
  readonly enginePort: number;
  readonly engineAdvertiseHost: string;
  readonly leaseMs: number;
  readonly failoverDeadlineMs: number;
  /** Only `serve --role engine` reads it (0 when unset). */
  readonly engineProbePort?: number;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** Every setting at its default: a node of a deployment on one machine. */
export function defaultTopologyConfig(): TopologyConfig {
  return loadTopologyConfig({}, (message) => new Error(message));
}

export function loadTopologyConfig(
  env: Environment,
  configError: (message: string) => Error,
): TopologyConfig {
  const text = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const value = text(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
      throw configError(`${name} must be an integer from ${min} to ${max}`);
    }
    return parsed;
  };
  const engineHost = text("PREDEX_ENGINE_HOST") ?? "127.0.0.1";
  const wildcard = engineHost === "0.0.0.0" || engineHost === "::";
  return {
    engineHost,
    enginePort: integer("PREDEX_ENGINE_PORT", 0, 0, 65_535),
    engineAdvertiseHost: text("PREDEX_ENGINE_ADVERTISE_HOST") ?? (wildcard ? hostname() : engineHost),
    leaseMs: integer("PREDEX_ENGINE_LEASE_MS", 5_000, 1_000, 600_000),
    failoverDeadlineMs: integer("PREDEX_FAILOVER_DEADLINE_MS", defaultFailoverDeadlineMs, 100, 600_000),
    engineProbePort: integer("PREDEX_ENGINE_PROBE_PORT", 0, 0, 65_535),
  };
}
