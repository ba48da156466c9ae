// The EngineStore contract on PostgreSQL: the same suite the memory and SQLite adapters pass, each
// test on a new database of a throwaway cluster, each store holding real leadership (lock + epoch).
// "Restart" gives the lock back and takes it again, so every reopen also bumps the epoch.

import { after, it } from "node:test";
import type { PostgresClient, PostgresPool } from "../../src/store/postgres/database.js";
import { openPostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import {
  acquireLeadership,
  engineApplicationName,
  type Leadership,
} from "../../src/store/postgres/leadership.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import {
  type ContractCommand,
  type ContractEvent,
  type ContractStore,
  describeEngineStoreContract,
} from "./engine-store-contract.js";

const skipReason = postgresSkipReason();

if (skipReason !== undefined) {
  it("EngineStore contract: postgres", { skip: skipReason }, () => {});
} else {
  let cluster: Promise<PostgresCluster> | undefined;
  const startedCluster = () => {
    cluster ??= startPostgresCluster();
    return cluster;
  };
  after(async () => {
    if (cluster !== undefined) await (await cluster).stop();
  });

  let databaseNumber = 0;
  const open = new Set<{ pool: PostgresPool; leadership: Leadership }>();
  const urls = new WeakMap<ContractStore<PostgresClient>, string>();

  const storeAt = async (url: string): Promise<ContractStore<PostgresClient>> => {
    const nodeId = `contract-${databaseNumber}-${open.size}`;
    const pool = openPostgresPool({ url, applicationName: engineApplicationName(nodeId) });
    await pool.query("CREATE TABLE IF NOT EXISTS contract_projection (sequence bigint PRIMARY KEY)");
    const leadership = await acquireLeadership(pool, { url, nodeId });
    open.add({ pool, leadership });
    const store = await PostgresEngineStore.open<ContractCommand, ContractEvent>(pool, leadership);
    urls.set(store, url);
    return store;
  };

  const closeStore = async (store: ContractStore<PostgresClient>) => {
    for (const entry of open) {
      if (entry.pool !== (store as PostgresEngineStore<ContractCommand, ContractEvent>).pool) continue;
      await entry.leadership.release();
      await entry.pool.end();
      open.delete(entry);
    }
  };

  describeEngineStoreContract<PostgresClient>("postgres", {
    async create() {
      databaseNumber += 1;
      const url = await (await startedCluster()).createDatabase(`contract_${databaseNumber}`);
      return storeAt(url);
    },
    async reopen(store) {
      await closeStore(store);
      return storeAt(urls.get(store)!);
    },
    async recordSequences(client, entries) {
      await client.query("INSERT INTO contract_projection (sequence) SELECT unnest($1::bigint[])", [
        entries.map((entry) => entry.sequence),
      ]);
    },
    async readRecordedSequences(store) {
      const pool = (store as PostgresEngineStore<ContractCommand, ContractEvent>).pool;
      const result = await pool.query<{ sequence: bigint }>(
        "SELECT sequence FROM contract_projection ORDER BY sequence",
      );
      return result.rows.map((row) => row.sequence);
    },
    async disposeAll() {
      for (const entry of open) {
        await entry.leadership.release();
        await entry.pool.end();
      }
      open.clear();
    },
  });
}
