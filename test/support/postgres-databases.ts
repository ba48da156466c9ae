// One throwaway cluster per test file and a new database per store: `databases.fresh()` gives a
// new database's URL, `databases.pool(url)` opens a pool on it (two pools on one URL are two API
// nodes sharing the database), and `databases.close()` ends them all and stops the cluster.

import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { type PostgresCluster, startPostgresCluster } from "./postgres-cluster.js";

export interface PostgresDatabases {
  fresh(): Promise<string>;
  pool(url: string, applicationName?: string): PostgresPool;
  /** A pool on a new database. */
  freshPool(): Promise<PostgresPool>;
  close(): Promise<void>;
}

export function postgresDatabases(prefix: string): PostgresDatabases {
  let cluster: Promise<PostgresCluster> | undefined;
  let databaseNumber = 0;
  const pools: PostgresPool[] = [];
  const databases: PostgresDatabases = {
    async fresh() {
      cluster ??= startPostgresCluster();
      databaseNumber += 1;
      return (await cluster).createDatabase(`${prefix}_${databaseNumber}`);
    },
    pool(url, applicationName = `predex-test-${prefix}`) {
      const pool = openPostgresPool({ url, applicationName, poolConnectionsMax: 4 });
      // A suite opens a database per test and never ends its pool: idle connections close soon, so
      // the cluster's connection limit is never reached (pg-pool reads this on every release).
      pool.options.idleTimeoutMillis = 200;
      pools.push(pool);
      return pool;
    },
    async freshPool() {
      return databases.pool(await databases.fresh());
    },
    async close() {
      await Promise.all(pools.splice(0).map((pool) => pool.end()));
      if (cluster !== undefined) await (await cluster).stop();
    },
  };
  return databases;
}
