// The scaffold of a suite that runs the engine's store on a throwaway PostgreSQL cluster of its own:
// called inside a describe, it starts the cluster before the suite's tests and, after them, releases
// every leadership taken, then ends every pool opened, then stops the cluster (a leadership's release
// needs its pool; a pool left open would hold the cluster's shutdown).

import { after, before } from "node:test";
import {
  openPostgresPool,
  type PostgresConnectionOptions,
  type PostgresPool,
} from "../../src/store/postgres/database.js";
import { acquireLeadership, type Leadership } from "../../src/store/postgres/leadership.js";
import { type PostgresCluster, startPostgresCluster } from "./postgres-cluster.js";

export interface SuiteDatabase {
  readonly url: string;
  readonly pool: PostgresPool;
}

export interface PostgresEngineSuite {
  /**
   * A new database on the suite's cluster and a pool on it: `connections` makes the pool's options
   * from the database's URL (an engine node's term, say); a plain `predex-test` pool otherwise.
   */
  database(name: string, connections?: (url: string) => PostgresConnectionOptions): Promise<SuiteDatabase>;
  /** `nodeId` takes the engine's leadership of the database, through its pool. */
  lead(database: SuiteDatabase, nodeId: string): Promise<Leadership>;
}

/** Registers the suite's before and after hooks; call it at the top of a describe's body. */
export function postgresEngineSuite(): PostgresEngineSuite {
  let cluster: PostgresCluster | undefined;
  const pools: PostgresPool[] = [];
  const leaderships: Leadership[] = [];
  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(async () => {
    for (const leadership of leaderships) await leadership.release();
    for (const pool of pools) await pool.end();
    await cluster?.stop();
  });
  return {
    async database(name, connections = (url) => ({ url, applicationName: "predex-test" })) {
      if (cluster === undefined) throw new Error("the suite's cluster starts in its before hook");
      const url = await cluster.createDatabase(name);
      const pool = openPostgresPool(connections(url));
      pools.push(pool);
      return { url, pool };
    },
    async lead(database, nodeId) {
      const leadership = await acquireLeadership(database.pool, { url: database.url, nodeId });
      leaderships.push(leadership);
      return leadership;
    },
  };
}
