// The operator's metrics (GET /metrics on the admin listener, Prometheus text format): one
// prom-client registry per platform, so several platforms in one process (tests) never mix series.
//
// Names follow Prometheus practice: `predex_` prefix, base units (`_seconds`), counters end in
// `_total`, labels with few values (surface, route template, method, status; never an id). The
// process figures are prom-client's default metrics under their standard names (`process_*`,
// `nodejs_*`), so stock dashboards read them.
//
// What runs on the request path is kept small: an HTTP response costs two Map lookups and a
// bucket increment on a pre-bound child; the engine reports once per batch; sockets and the
// legacy notifier bump plain numbers that are read only when Prometheus scrapes.

import type { FastifyInstance, onResponseHookHandler } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { EngineObserver } from "../engine/engine.js";
import type { SocketStats } from "../realtime/fanout.js";
import type { ReplicationStatus } from "../store/operations-queries.js";
import { PreboundHistogram, type PreboundHistogramChild } from "./prebound-histogram.js";

export type MetricsSurface = "gateway" | "public" | "legacy" | "admin";

/** Seconds; from half a millisecond (a cached read) to ten seconds (a request that timed out). */
export const httpDurationBucketsSeconds = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
/** Seconds; an fsync-bound commit takes about a millisecond, a large snapshot seconds. */
export const engineDurationBucketsSeconds = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];
/** Journal entries per commit, up to journalBatchCommandsMax (256). */
export const batchEntriesBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** The route label of a request no route matched (a 404), so unknown paths never become labels. */
export const unmatchedRouteLabel = "unmatched";

/** What the metrics read when scraped; each part is attached once the platform has built it. */
export interface MetricSources {
  readonly engine?: {
    readonly queuedCommands: number;
    readonly committedSequence: bigint;
    readonly phase: string;
  };
  readonly sockets?: Readonly<Record<"gateway" | "public", SocketStats>>;
  /** Whether the database replicates synchronously (PostgreSQL; absent on SQLite). */
  readonly database?: { readonly replication: () => Promise<ReplicationStatus> };
  /** Forks this node's copies of the journal met (src/engine/journal-chain.ts). */
  readonly journal?: { readonly forks: () => number };
  /**
   * The last journal sequence the read models hold, where they follow the journal (SQLite:
   * src/engine/deferred-projection.ts); absent where each commit writes them (PostgreSQL: the
   * engine's committed sequence is theirs).
   */
  readonly readModels?: { readonly projectedSequence: () => bigint };
  readonly legacy?: {
    readonly webhookStats: { readonly attempts: number; readonly failures: number };
    /** A database count: asynchronous on every store (a round trip on PostgreSQL). */
    readonly requestsPending: () => number | Promise<number>;
  };
}

export class PlatformMetrics {
  readonly registry = new Registry();
  readonly #httpDuration: PreboundHistogram;
  readonly #batchEntries: Histogram<string>;
  readonly #commitDuration: Histogram<string>;
  readonly #snapshotDuration: Histogram<string>;
  #sources: MetricSources = {};

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.#httpDuration = new PreboundHistogram(
      "predex_http_request_duration_seconds",
      "Time from receiving a request to sending its response, by listener, route template, method and status; _count is the number of requests.",
      httpDurationBucketsSeconds,
      this.registry,
    );
    this.#batchEntries = new Histogram({
      name: "predex_engine_batch_entries",
      help: "Journal entries written per group commit.",
      buckets: batchEntriesBuckets,
      registers,
    });
    this.#commitDuration = new Histogram({
      name: "predex_engine_commit_duration_seconds",
      help: "Time the store took to commit one batch (journal, read models, fsync).",
      buckets: engineDurationBucketsSeconds,
      registers,
    });
    this.#snapshotDuration = new Histogram({
      name: "predex_engine_snapshot_duration_seconds",
      help: "Time to encode and write one state snapshot.",
      buckets: engineDurationBucketsSeconds,
      registers,
    });
    this.#defineScrapedMetrics(registers);
  }

  /** Adds what the platform has built so far; later calls add to earlier ones. */
  attach(sources: MetricSources): void {
    this.#sources = { ...this.#sources, ...sources };
  }

  /** The engine's per-batch and per-snapshot report. */
  readonly engineObserver: EngineObserver = {
    batchCommitted: (_commands, entries, commitSeconds) => {
      this.#batchEntries.observe(entries);
      this.#commitDuration.observe(commitSeconds);
    },
    snapshotSaved: (seconds) => this.#snapshotDuration.observe(seconds),
  };

  /**
   * Times every response of `app`. Call before the app's routes are registered: each route gets
   * its own onResponse hook that already knows the route template, so a response costs one Map
   * lookup by method and one by status, and nothing is allocated (Fastify's
   * `request.routeOptions` builds a new object on every read). Responses no route matched (the
   * not-found handler) are counted under route "unmatched".
   */
  instrumentHttp(app: FastifyInstance, surface: MetricsSurface): void {
    const histogram = this.#httpDuration;
    const timerFor = (route: string): onResponseHookHandler => {
      // method → status → child, each label set bound once (src/metrics/prebound-histogram.ts).
      const byMethod = new Map<string, Map<number, PreboundHistogramChild>>();
      return (request, reply, done) => {
        let byStatus = byMethod.get(request.method);
        if (byStatus === undefined) {
          byStatus = new Map();
          byMethod.set(request.method, byStatus);
        }
        let child = byStatus.get(reply.statusCode);
        if (child === undefined) {
          child = histogram.child({
            surface,
            route,
            method: request.method,
            status: String(reply.statusCode),
          });
          byStatus.set(reply.statusCode, child);
        }
        child.observe(reply.elapsedTime / 1000);
        done();
      };
    };
    app.addHook("onRoute", (routeOptions) => {
      const hook = timerFor(routeOptions.url);
      const existing = routeOptions.onResponse;
      routeOptions.onResponse =
        existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook];
    });
    const unmatched = timerFor(unmatchedRouteLabel);
    app.addHook("onResponse", (request, reply, done) => {
      if (request.is404) unmatched.call(app, request, reply, done);
      else done();
    });
  }

  /** The Prometheus text exposition of every metric. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** Gauges and counters read from their sources when Prometheus scrapes, never on the hot path. */
  #defineScrapedMetrics(registers: Registry[]): void {
    const sources = () => this.#sources;
    new Gauge({
      name: "predex_engine_queue_commands",
      help: "Commands waiting for the engine (refused beyond queueCommandsMax).",
      registers,
      collect() {
        const engine = sources().engine;
        if (engine !== undefined) this.set(engine.queuedCommands);
      },
    });
    new Gauge({
      name: "predex_engine_journal_sequence",
      help: "Sequence of the last command durable in the journal.",
      registers,
      collect() {
        const engine = sources().engine;
        if (engine !== undefined) this.set(Number(engine.committedSequence));
      },
    });
    new Gauge({
      name: "predex_read_models_sequence",
      help: "Sequence of the last journal entry the read models hold: predex_engine_journal_sequence minus this is how far they lag (SQLite projects them behind the journal, and a read catches them up first; on PostgreSQL each commit writes them, so the two are equal).",
      registers,
      collect() {
        const { readModels, engine } = sources();
        if (readModels !== undefined) this.set(Number(readModels.projectedSequence()));
        else if (engine !== undefined) this.set(Number(engine.committedSequence));
      },
    });
    new Gauge({
      name: "predex_engine_up",
      help: "1 while the engine takes commands, 0 once it has stopped (closing, closed or failed).",
      registers,
      collect() {
        const engine = sources().engine;
        if (engine !== undefined) this.set(engine.phase === "running" ? 1 : 0);
      },
    });
    new Counter({
      name: "predex_journal_forks_total",
      help: "Times a copy of the journal on this node (an API node's replica, an engine standby) held another history than the database (an asynchronous failover lost acknowledged entries, or a split brain) and was rebuilt from it. Alert on any increase.",
      registers,
      // The source is a running total: the counter is set to it (reset, then inc).
      collect() {
        const journal = sources().journal;
        this.reset();
        this.inc(journal === undefined ? 0 : journal.forks());
      },
    });
    // One query per scrape for the three replication series.
    let replicationRead: { atMs: number; status: Promise<ReplicationStatus | undefined> } | undefined;
    const replication = (): Promise<ReplicationStatus | undefined> => {
      const database = sources().database;
      if (database === undefined) return Promise.resolve(undefined);
      const nowMs = Date.now();
      if (replicationRead === undefined || nowMs - replicationRead.atMs > 1000) {
        // A database that does not answer leaves the series out of this scrape.
        replicationRead = { atMs: nowMs, status: database.replication().catch(() => undefined) };
      }
      return replicationRead.status;
    };
    new Gauge({
      name: "predex_database_synchronous_replication",
      help: "1 when the database acknowledges a commit only once a synchronous standby has it (synchronous_standby_names set, synchronous_commit on), 0 when not: then a failover of the database may lose acknowledged orders. Labelled with the primary's synchronous_standby_names; absent on SQLite.",
      // A label, so that no series shows where there is no database to replicate (an unlabelled
      // gauge always has one, at 0).
      labelNames: ["synchronous_standby_names"] as const,
      registers,
      async collect() {
        const status = await replication();
        this.reset();
        if (status !== undefined) {
          this.set({ synchronous_standby_names: status.synchronousStandbyNames }, status.synchronous ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: "predex_database_standbys",
      help: "Streaming standbys connected to the database (pg_stat_replication; absent when the database role may not see them), by whether they count for synchronous commit.",
      labelNames: ["synchronous"] as const,
      registers,
      async collect() {
        const status = await replication();
        if (status?.standbys === undefined || status.synchronousStandbys === undefined) return;
        this.set({ synchronous: "true" }, status.synchronousStandbys);
        this.set({ synchronous: "false" }, status.standbys - status.synchronousStandbys);
      },
    });
    const socketSeries = (
      name: string,
      help: string,
      read: (stats: SocketStats) => number,
      type: "counter" | "gauge",
    ) => {
      const options = {
        name,
        help: `${help} By listener: gateway (signed /socket/* channels) or public (/ws/market).`,
        labelNames: ["surface"] as const,
        registers,
      };
      const surfaces = ["gateway", "public"] as const;
      if (type === "gauge") {
        new Gauge({
          ...options,
          collect() {
            const sockets = sources().sockets;
            if (sockets !== undefined)
              for (const surface of surfaces) this.set({ surface }, read(sockets[surface]));
          },
        });
        return;
      }
      new Counter({
        ...options,
        // The source is already a running total: the counter is set to it (reset, then inc).
        collect() {
          const sockets = sources().sockets;
          if (sockets === undefined) return;
          this.reset();
          for (const surface of surfaces) this.inc({ surface }, read(sockets[surface]));
        },
      });
    };
    socketSeries("predex_ws_connections", "Open WebSocket connections.", (s) => s.opened - s.closed, "gauge");
    socketSeries(
      "predex_ws_connections_opened_total",
      "WebSocket connections accepted.",
      (s) => s.opened,
      "counter",
    );
    socketSeries(
      "predex_ws_messages_sent_total",
      "WebSocket messages queued to subscribers.",
      (s) => s.messagesSent,
      "counter",
    );
    socketSeries(
      "predex_ws_messages_dropped_total",
      "WebSocket messages not sent because the subscriber had gone or was cut off.",
      (s) => s.messagesDropped,
      "counter",
    );
    socketSeries(
      "predex_ws_slow_consumer_closes_total",
      "Subscribers cut off for reading slower than the server publishes (wsBufferedBytesMax).",
      (s) => s.slowConsumerCloses,
      "counter",
    );
    new Gauge({
      name: "predex_legacy_queue_requests",
      help: "Legacy order requests accepted and not yet executed (PENDING).",
      registers,
      async collect() {
        const legacy = sources().legacy;
        if (legacy !== undefined) this.set(await legacy.requestsPending());
      },
    });
    const webhookCounter = (
      name: string,
      help: string,
      read: (stats: { attempts: number; failures: number }) => number,
    ) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          const legacy = sources().legacy;
          if (legacy === undefined) return;
          this.reset();
          this.inc(read(legacy.webhookStats));
        },
      });
    webhookCounter(
      "predex_legacy_webhook_attempts_total",
      "Merchant webhook deliveries attempted.",
      (s) => s.attempts,
    );
    webhookCounter(
      "predex_legacy_webhook_failures_total",
      "Merchant webhook attempts that failed (no 2xx within the attempt timeout); each is retried with backoff until attemptsMax.",
      (s) => s.failures,
    );
  }
}
