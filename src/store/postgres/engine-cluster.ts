// The engine's side of the database as an API node reads it (src/store/engine-cluster.ts), and the
// leader's one write there besides the journal: its command port's address. The address lives in
// engine_leader next to the epoch; a takeover's epoch bump clears it (leadership.ts), and only the
// holder of the current epoch can set it again, so an API node never reads a stale leader's address
// under the new epoch.

import { decodeJournalText } from "../../engine/journal-chain.js";
import type { JournalEntry } from "../../engine/store.js";
import type { AdvertisedLeader, EngineClusterStore, JournalWakeupSubscription } from "../engine-cluster.js";
import type { PostgresPool } from "./database.js";
import { PostgresEngineStore } from "./engine-store.js";
import { applyForwardedCommandsMigrations, findForwardedStatement } from "./forwarded-commands.js";
import { listenForJournalAppends } from "./journal-wakeups.js";

const currentLeaderStatement = {
  name: "predex-cluster-current-leader",
  text: "SELECT epoch, advertised_url FROM engine_leader",
};
const advertiseStatement = {
  name: "predex-cluster-advertise",
  text: "UPDATE engine_leader SET advertised_url = $2 WHERE epoch = $1",
};

/** Thrown when the leader tries to advertise under an epoch that has since been superseded. */
export class AdvertiseFencedError extends Error {
  override readonly name = "AdvertiseFencedError";
}

/**
 * Publishes the leader's command port under its epoch. Refused (no row changes) once another node
 * has bumped the epoch.
 */
export async function advertiseLeader(pool: PostgresPool, epoch: bigint, url: string): Promise<void> {
  const result = await pool.query({ ...advertiseStatement, values: [epoch, url] });
  if (result.rowCount !== 1) {
    throw new AdvertiseFencedError(`Not advertised: epoch ${epoch} is no longer the leader's`);
  }
}

export interface PostgresEngineClusterOptions {
  readonly url: string;
  /** application_name of the listening connection. */
  readonly applicationName: string;
  /** The longest a lost notification can delay the replica. */
  readonly pollEveryMs?: number;
}

export async function openPostgresEngineCluster<Command, Event>(
  pool: PostgresPool,
  options: PostgresEngineClusterOptions,
): Promise<EngineClusterStore<Command, Event>> {
  const journal = await PostgresEngineStore.open<Command, Event>(pool);
  // An API node may start before any engine node has created the table.
  await applyForwardedCommandsMigrations(pool);
  return {
    journal,
    async currentLeader(): Promise<AdvertisedLeader | undefined> {
      const result = await pool.query<{ epoch: bigint; advertised_url: string | null }>(
        currentLeaderStatement,
      );
      const row = result.rows[0];
      if (row === undefined || row.advertised_url === null) return undefined;
      return { epoch: row.epoch, url: row.advertised_url };
    },
    async findForwarded<C, E>(forwardId: string): Promise<JournalEntry<C, E> | undefined> {
      const result = await pool.query<{ sequence: bigint; now_ms: bigint; command: string; events: string }>({
        ...findForwardedStatement,
        values: [forwardId],
      });
      const row = result.rows[0];
      if (row === undefined) return undefined;
      return {
        sequence: row.sequence,
        nowMs: Number(row.now_ms),
        command: decodeJournalText<C>(row.command),
        events: decodeJournalText<E[]>(row.events),
      };
    },
    listenForAppends(onWake: (lastSequence?: bigint) => void): Promise<JournalWakeupSubscription> {
      return listenForJournalAppends({
        url: options.url,
        applicationName: options.applicationName,
        onWake,
        ...(options.pollEveryMs === undefined ? {} : { pollEveryMs: options.pollEveryMs }),
      });
    },
  };
}
