// The one CLI cluster fixture, CliTopology, that the CLI topology tests (test/topology/*) and
// bench:db-faults share: the PostgreSQL cluster, the data directory and every node and resource a
// test starts, ended by one stop(). Nodes are started one by one (startNode, startApi) or as a
// deployment (startDeployment): engine nodes (`predex serve --role engine`) and API nodes
// (`predex serve --role api`) on one database URL, API nodes on ports chosen here so one that is
// started again comes back where its clients are. A deployment's supervisor is optional: with
// `restartAfterMs` a node that exits is started again after that pause (systemd's Restart=always),
// as bench:db-faults needs for a build whose nodes exit on a database fault; without it a node that
// exits stays down. Either way every exit is counted.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testMasterKeyHex, testPlatformEnv } from "../e2e/harness.js";
import { CliNode } from "./cli-node.js";
import { freeLoopbackPort } from "./loopback-port.js";
import {
  type PostgresCluster,
  type PostgresClusterOptions,
  startPostgresCluster,
} from "./postgres-cluster.js";

/** The line an engine node prints when it leads: its epoch and the sequence it took over at. */
export const leadingLine = /leading \(epoch (\d+), took over at sequence (\d+)\)/;

/** An API node a test started: its process and the listeners it printed. */
export interface StartedApi {
  readonly node: CliNode;
  readonly gateway: string;
  readonly admin: string;
}

/**
 * A throwaway PostgreSQL cluster, a data directory, and the CLI nodes (and anything else handed to
 * onStop) a test starts on them. stop() ends them in reverse order, a paused node too (SIGCONT,
 * then SIGKILL), then the cluster and the directory. Use it as
 * `before(async () => { topology = await CliTopology.start("name") })`, `after(() => topology?.stop())`.
 */
export class CliTopology {
  readonly nodes: CliNode[] = [];
  readonly #cleanups: (() => unknown)[] = [];

  private constructor(
    readonly cluster: PostgresCluster,
    readonly dataDir: string,
  ) {}

  /** `name` names the data directory (predex-<name>-…) for whoever looks in /tmp. */
  static async start(name: string, clusterOptions: PostgresClusterOptions = {}): Promise<CliTopology> {
    const dataDir = mkdtempSync(join(tmpdir(), `predex-${name}-`));
    try {
      return new CliTopology(await startPostgresCluster(clusterOptions), dataDir);
    } catch (error) {
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * The environment of the nodes of one deployment: the test platform's (listeners on free
   * loopback ports, this data directory), logs at warn, a new database `database` on the cluster,
   * the test master key and `adminToken`; `extra` last.
   */
  async env(
    database: string,
    adminToken: string,
    extra: Readonly<Record<string, string>> = {},
  ): Promise<Record<string, string>> {
    return {
      ...testPlatformEnv(this.dataDir),
      PREDEX_LOG_LEVEL: "warn",
      PREDEX_DATABASE_URL: await this.cluster.createDatabase(database),
      PREDEX_MASTER_KEY: testMasterKeyHex,
      PREDEX_ADMIN_TOKEN: adminToken,
      ...extra,
    };
  }

  /** `predex serve --role <role>` with `env`, ended by stop(). */
  startNode(role: "engine" | "api", env: Readonly<Record<string, string>>): CliNode {
    const node = CliNode.start(["serve", "--role", role], env);
    this.nodes.push(node);
    return node;
  }

  /** An API node, once it printed its gateway and admin listeners. */
  async startApi(env: Readonly<Record<string, string>>, timeoutMs = 90_000): Promise<StartedApi> {
    const node = this.startNode("api", env);
    const [, gateway] = await node.waitFor(/^\s+gateway\s.*?(https?:\/\/\S+)/, timeoutMs);
    const [, admin] = await node.waitFor(/^\s+admin\s.*?(https?:\/\/\S+)/, timeoutMs);
    return { node, gateway: gateway!, admin: admin! };
  }

  /**
   * Engine and API nodes on `options.env`, supervised; resolves once a leader leads and every API
   * node listens. Ended by stop() (before the single nodes).
   */
  async startDeployment(options: CliDeploymentOptions): Promise<CliDeployment> {
    const deployment = new CliDeployment(options);
    this.onStop(() => deployment.stop());
    await deployment.startAll();
    return deployment;
  }

  /** Something else to end at stop() (a socket, a pool, an in-process replica), before the nodes. */
  onStop(cleanup: () => unknown): void {
    this.#cleanups.push(cleanup);
  }

  async stop(): Promise<void> {
    for (const cleanup of this.#cleanups.splice(0).reverse()) await cleanup();
    for (const node of this.nodes) {
      node.kill("SIGCONT");
      node.kill("SIGKILL");
      await node.exited;
    }
    await this.cluster.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface CliDeploymentOptions {
  readonly engines: number;
  readonly apis: number;
  /** Every node's environment (PREDEX_DATABASE_URL, PREDEX_MASTER_KEY, PREDEX_ADMIN_TOKEN, …). */
  readonly env: Readonly<Record<string, string>>;
  /** Another source tree's src/cli/main.ts (a baseline build); default this one's. */
  readonly entry?: string;
  /** Start a node that exited again after this pause; undefined: leave it down. */
  readonly restartAfterMs?: number;
}

export interface NodeExit {
  readonly role: "engine" | "api";
  readonly index: number;
  readonly code: number | null;
  readonly atMs: number;
}

/** One node's place in the deployment: the process running it now (a new one after a restart). */
export class SupervisedNode {
  #current: CliNode;
  #stopping = false;

  constructor(
    readonly role: "engine" | "api",
    readonly index: number,
    start: () => CliNode,
    onExit: (exit: NodeExit) => void,
    restartAfterMs: number | undefined,
  ) {
    const launch = (): CliNode => {
      const node = start();
      void node.exited.then((code) => {
        if (this.#stopping) return;
        onExit({ role, index, code, atMs: performance.now() });
        if (restartAfterMs === undefined) return;
        setTimeout(() => {
          if (!this.#stopping) this.#current = launch();
        }, restartAfterMs);
      });
      return node;
    };
    this.#current = launch();
  }

  get node(): CliNode {
    return this.#current;
  }

  /** Stops supervising and kills the process (SIGKILL: nothing is left behind). */
  async kill(): Promise<void> {
    this.#stopping = true;
    this.#current.kill("SIGCONT");
    this.#current.kill("SIGKILL");
    await this.#current.exited;
  }
}

/** GET /readyz's status at `base` (0 when it does not answer within 3 s). */
export async function readyStatus(base: string): Promise<number> {
  try {
    const response = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(3_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

export interface ApiNodeAddresses {
  readonly gateway: string;
  readonly admin: string;
}

/** A deployment's nodes (CliTopology.startDeployment), each supervised, and every exit seen. */
export class CliDeployment {
  readonly engines: SupervisedNode[] = [];
  readonly apis: (SupervisedNode & ApiNodeAddresses)[] = [];
  readonly exits: NodeExit[] = [];

  constructor(readonly options: CliDeploymentOptions) {}

  /** Starts every node, engines one at a time; called once, by CliTopology.startDeployment. */
  async startAll(): Promise<void> {
    const { options } = this;
    const onExit = (exit: NodeExit) => this.exits.push(exit);
    const entry = options.entry === undefined ? {} : { entry: options.entry };
    for (let index = 0; index < options.engines; index += 1) {
      const node = new SupervisedNode(
        "engine",
        index,
        () => CliNode.start(["serve", "--role", "engine"], options.env, entry),
        onExit,
        options.restartAfterMs,
      );
      this.engines.push(node);
      // One at a time: the first leads, the others follow as warm standbys.
      await node.node.waitFor(index === 0 ? /leading \(epoch/ : /standby, following/, 90_000);
    }
    for (let index = 0; index < options.apis; index += 1) {
      const ports = {
        PREDEX_PORT: String(await freeLoopbackPort()),
        PREDEX_PUBLIC_PORT: String(await freeLoopbackPort()),
        PREDEX_LEGACY_PORT: String(await freeLoopbackPort()),
        PREDEX_ADMIN_PORT: String(await freeLoopbackPort()),
      };
      const node = new SupervisedNode(
        "api",
        index,
        () => CliNode.start(["serve", "--role", "api"], { ...options.env, ...ports }, entry),
        onExit,
        options.restartAfterMs,
      );
      const api = Object.assign(node, {
        gateway: `http://127.0.0.1:${ports.PREDEX_PORT}`,
        admin: `http://127.0.0.1:${ports.PREDEX_ADMIN_PORT}`,
      });
      this.apis.push(api);
      await node.node.waitFor(/^\s+admin\s/, 90_000);
    }
  }

  /** Every API node's GET /readyz status (0 when it does not answer). */
  async readiness(): Promise<number[]> {
    return Promise.all(this.apis.map((api) => readyStatus(api.admin)));
  }

  /**
   * Every engine node's GET /readyz status, from the probe address it printed (a build whose engine
   * nodes have no probes prints none: its nodes are left out).
   */
  async engineReadiness(): Promise<number[]> {
    return Promise.all(this.engineProbeUrls().map(readyStatus));
  }

  /** Where the engine nodes' probes listen, as they printed it. */
  engineProbeUrls(): string[] {
    return this.engines.flatMap((engine) => {
      const line = engine.node.lines.find((text) => /probes at (\S+)/.test(text));
      return line === undefined ? [] : [/probes at (\S+)/.exec(line)![1]!];
    });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.engines, ...this.apis].map((node) => node.kill()));
  }
}
