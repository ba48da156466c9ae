// Every PREDEX_* environment variable, parsed once into a typed, validated configuration (with
// src/config/*.ts, one file per group of settings). Nothing else in the codebase reads process.env.

import { join, resolve } from "node:path";
import { type ChainConfig, loadChainConfig } from "./config/chain-config.js";
import { loadTopologyConfig, type TopologyConfig } from "./config/topology-config.js";

export interface ListenerConfig {
  readonly host: string;
  /** 0 asks the operating system for any free port. */
  readonly port: number;
  /**
   * The URL partners reach this listener at (behind a proxy or a TLS terminator), for the OpenAPI
   * document's `servers`; without it, the address the listener is bound to.
   */
  readonly baseUrl?: string;
}

/** Bounds every listener applies to what it receives (src/api/shared/listener-limits.ts). */
export interface ListenerLimits {
  /** Time a client has to send a whole request, headers and body (PREDEX_REQUEST_TIMEOUT_MS). */
  readonly requestReceiveMsMax: number;
  /**
   * Connections the kernel may hold for a listener before the process accepts them
   * (PREDEX_LISTEN_BACKLOG); the kernel caps it at net.core.somaxconn.
   */
  readonly listenBacklogConnections: number;
}

export interface TlsConfig {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface PlatformConfig {
  /** Holds the SQLite file, the master key, the admin token and the demo credentials. */
  readonly dataDir: string;
  /**
   * Journal entries older than the latest snapshot go here on SQLite (PREDEX_JOURNAL_ARCHIVE_DIR,
   * default `<dataDir>/journal-archive`); on PostgreSQL the archive is in the database and only
   * `predex journal import-archive` reads a directory.
   */
  readonly journalArchiveDir: string;
  /** `postgres://…` selects PostgreSQL (DESIGN §1); undefined means the embedded SQLite store. */
  readonly databaseUrl: string | undefined;
  /**
   * How the nodes of a PostgreSQL deployment find and replace each other (src/config/topology-config.ts);
   * read only with a databaseUrl, undefined on SQLite, which has no other node.
   */
  readonly topology: TopologyConfig | undefined;
  readonly gateway: ListenerConfig;
  readonly public: ListenerConfig;
  readonly legacy: ListenerConfig;
  readonly admin: ListenerConfig;
  /**
   * Host names the admin listener answers besides loopback names and IP addresses
   * (PREDEX_ADMIN_ALLOWED_HOSTS, comma-separated; lowercase, without a trailing dot).
   */
  readonly adminAllowedHosts: readonly string[];
  readonly listenerLimits: ListenerLimits;
  /** The operator's bearer token; when undefined it is read from, or created in, the data dir. */
  readonly adminToken: string | undefined;
  /** 32 bytes that encrypt APP Secrets at rest (PREDEX_MASTER_KEY); see src/cli/master-key.ts. */
  readonly masterKey: Buffer | undefined;
  /** PREDEX_MASTER_KEY_FILE: a file holding the master key, outside the data dir (absolute path). */
  readonly masterKeyFile: string | undefined;
  readonly sessionTtlSeconds: number;
  readonly logLevel: LogLevel;
  /** Whether PREDEX_LOG_LEVEL was given: `serve --demo` quiets the log to warnings only when it was not. */
  readonly logLevelGiven: boolean;
  /** Serves the gateway, public and legacy listeners over HTTPS (session cookies become Secure). */
  readonly tls: TlsConfig | undefined;
  /** `smtp://user:pass@host:587` or `smtps://…` for MFA email; undefined writes mail to `<dataDir>/mail/outbox.jsonl`. */
  readonly smtpUrl: string | undefined;
  /** The From address of the platform's email. */
  readonly mailFrom: string;
  /** The chain wallet's settings (src/config/chain-config.ts); the watcher and sender are off without them. */
  readonly chain: ChainConfig;
  /** The demo's market maker quotes (`serve --demo`, `predex demo`) unless PREDEX_DEMO_BOT is 0. */
  readonly demoBot: boolean;
}

export const defaultSessionTtlSeconds = 86_400;
/** Spec 001's request timeout, and long enough for a 1 MiB body at about 35 kB/s. */
export const defaultRequestReceiveMsMax = 30_000;
/**
 * Linux's default net.core.somaxconn since 5.4: a burst of a few thousand connections waits in the
 * kernel and is answered (502/2002 when the engine is full), where Node's default of 511 let the
 * kernel drop and reset the excess.
 */
export const defaultListenBacklogConnections = 4_096;
export const defaultMailFrom = "predex <no-reply@predex.local>";

const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Environment = Readonly<Record<string, string | undefined>>;

/** Parses the environment; throws ConfigError naming the variable when a value is unusable. */
export function loadConfig(env: Environment = process.env): PlatformConfig {
  const host = text(env, "PREDEX_HOST") ?? "127.0.0.1";
  const certFile = text(env, "PREDEX_TLS_CERT_FILE");
  const keyFile = text(env, "PREDEX_TLS_KEY_FILE");
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError("PREDEX_TLS_CERT_FILE and PREDEX_TLS_KEY_FILE must be set together");
  }
  return {
    dataDir: resolve(text(env, "PREDEX_DATA_DIR") ?? "./data"),
    journalArchiveDir: resolve(
      text(env, "PREDEX_JOURNAL_ARCHIVE_DIR") ??
        join(text(env, "PREDEX_DATA_DIR") ?? "./data", "journal-archive"),
    ),
    databaseUrl: text(env, "PREDEX_DATABASE_URL"),
    topology:
      text(env, "PREDEX_DATABASE_URL") === undefined
        ? undefined
        : loadTopologyConfig(env, (message) => new ConfigError(message)),
    gateway: { host, port: port(env, "PREDEX_PORT", 8080), ...baseUrl(env, "PREDEX_BASE_URL") },
    public: { host, port: port(env, "PREDEX_PUBLIC_PORT", 8081), ...baseUrl(env, "PREDEX_PUBLIC_BASE_URL") },
    legacy: { host, port: port(env, "PREDEX_LEGACY_PORT", 8082), ...baseUrl(env, "PREDEX_LEGACY_BASE_URL") },
    // The operator surface never listens beyond loopback unless explicitly asked to.
    admin: {
      host: text(env, "PREDEX_ADMIN_HOST") ?? "127.0.0.1",
      port: port(env, "PREDEX_ADMIN_PORT", 8083),
      ...baseUrl(env, "PREDEX_ADMIN_BASE_URL"),
    },
    adminAllowedHosts: hostNames(env, "PREDEX_ADMIN_ALLOWED_HOSTS"),
    listenerLimits: {
      requestReceiveMsMax: positiveInteger(env, "PREDEX_REQUEST_TIMEOUT_MS", defaultRequestReceiveMsMax),
      listenBacklogConnections: positiveInteger(
        env,
        "PREDEX_LISTEN_BACKLOG",
        defaultListenBacklogConnections,
      ),
    },
    adminToken: text(env, "PREDEX_ADMIN_TOKEN"),
    masterKey: masterKey(env),
    masterKeyFile: masterKeyFile(env),
    sessionTtlSeconds: positiveInteger(env, "PREDEX_SESSION_TTL_SECONDS", defaultSessionTtlSeconds),
    logLevel: logLevel(env),
    logLevelGiven: env.PREDEX_LOG_LEVEL !== undefined,
    tls: certFile !== undefined && keyFile !== undefined ? { certFile, keyFile } : undefined,
    smtpUrl: smtpUrl(env),
    mailFrom: text(env, "PREDEX_MAIL_FROM") ?? defaultMailFrom,
    chain: loadChainConfig(env, (message) => new ConfigError(message)),
    demoBot: env.PREDEX_DEMO_BOT?.trim() !== "0",
  };
}

function text(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function port(env: Environment, name: string, fallback: number): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed > 65_535) throw new ConfigError(`${name} must be a port number 0-65535`);
  return parsed;
}

/** An http(s) URL without query or fragment, trailing slashes dropped; absent when unset. */
function baseUrl(env: Environment, name: string): { baseUrl?: string } {
  const value = text(env, name);
  if (value === undefined) return {};
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search !== "" || url.hash !== "") {
    throw new ConfigError(`${name} must be an http:// or https:// URL without query or fragment`);
  }
  return { baseUrl: value.replace(/\/+$/, "") };
}

function positiveInteger(env: Environment, name: string, fallback: number): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(value)) throw new ConfigError(`${name} must be a positive integer`);
  return Number(value);
}

/** A comma-separated list of DNS names (no scheme, port or path), normalized to lowercase. */
function hostNames(env: Environment, name: string): string[] {
  const value = text(env, name);
  if (value === undefined) return [];
  const names = value
    .split(",")
    .map((entry) => entry.trim().toLowerCase().replace(/\.$/, ""))
    .filter((entry) => entry !== "");
  for (const entry of names) {
    if (!/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(entry)) {
      throw new ConfigError(
        `${name} must list host names separated by commas (no scheme, port or path): ${entry}`,
      );
    }
  }
  return names;
}

function logLevel(env: Environment): LogLevel {
  const value = text(env, "PREDEX_LOG_LEVEL") ?? "info";
  const level = logLevels.find((candidate) => candidate === value);
  if (level === undefined) throw new ConfigError(`PREDEX_LOG_LEVEL must be one of ${logLevels.join(", ")}`);
  return level;
}

function smtpUrl(env: Environment): string | undefined {
  const value = text(env, "PREDEX_SMTP_URL");
  if (value !== undefined && !/^smtps?:\/\/[^/]/.test(value)) {
    throw new ConfigError("PREDEX_SMTP_URL must be an smtp:// or smtps:// URL");
  }
  return value;
}

/** Accepts 64 hex digits or the base64 of 32 bytes. */
function masterKey(env: Environment): Buffer | undefined {
  const value = text(env, "PREDEX_MASTER_KEY");
  if (value === undefined) return undefined;
  if (text(env, "PREDEX_MASTER_KEY_FILE") !== undefined) {
    throw new ConfigError("Set PREDEX_MASTER_KEY or PREDEX_MASTER_KEY_FILE, not both");
  }
  return parseMasterKey(value, "PREDEX_MASTER_KEY");
}

/** A master key as written in the variable or the key file: 64 hex digits or the base64 of 32 bytes. */
export function parseMasterKey(value: string, source: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : Buffer.from(trimmed, "base64");
  if (key.length !== 32) throw new ConfigError(`${source} must hold 32 bytes (64 hex digits or base64)`);
  return key;
}

function masterKeyFile(env: Environment): string | undefined {
  const value = text(env, "PREDEX_MASTER_KEY_FILE");
  return value === undefined ? undefined : resolve(value);
}
