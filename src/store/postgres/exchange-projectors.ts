// The read models every commit projects on PostgreSQL, in order: the PostgreSQL twin of
// createExchangeProjectors (src/exchange/exchange-host.ts). The exchange's own read models with
// merchant commission (reads the identity tables) in the same flush statement, then the legacy settlement notifications (read the
// positions the exchange projector has just written), cut right after each entry that settles or
// voids a market, as on SQLite, so the notifications read positions as they were at the settlement.

import type { ExchangeCommand } from "../../core/commands.js";
import type { ExchangeEvent } from "../../core/events.js";
import type { JournalEntry } from "../../engine/store.js";
import { writerOfAll } from "./batch-statement.js";
import type { PostgresClient, PostgresPool } from "./database.js";
import type { PostgresProjector } from "./engine-store.js";
import { createPostgresExchangeProjector } from "./exchange-projector.js";
import { applyPostgresExchangeReadModelMigrations } from "./exchange-read-models.js";
import {
  applyPostgresNotificationMigrations,
  createPostgresLegacyNotificationProjector,
} from "./legacy-notifications.js";
import {
  applyPostgresMerchantCommissionMigrations,
  createCommissionAccrual,
} from "./merchant-commissions.js";

export type ExchangeProjector = PostgresProjector<ExchangeCommand, ExchangeEvent>;
type Entries = readonly JournalEntry<ExchangeCommand, ExchangeEvent>[];

export interface PostgresExchangeProjectorsOptions {
  /** More read models projected in the same commits, after the exchange's own (e.g. the catalogue's). */
  readonly projectors?: readonly ExchangeProjector[];
}

/**
 * The tables the projectors write: run by the engine role before it opens the engine (several
 * nodes may run it at once; each module applies once).
 */
export async function applyPostgresExchangeMigrations(pool: PostgresPool): Promise<void> {
  await applyPostgresExchangeReadModelMigrations(pool);
  await applyPostgresMerchantCommissionMigrations(pool);
  await applyPostgresNotificationMigrations(pool);
}

/** The projectors to give the engine (after applyPostgresExchangeMigrations). */
export function createPostgresExchangeProjectors(
  options: PostgresExchangeProjectorsOptions = {},
): ExchangeProjector[] {
  const projectors = [
    // The commission accrual is a part of the exchange's flush statement (one round trip fewer).
    createPostgresExchangeProjector({ commissions: createCommissionAccrual() }),
    createPostgresLegacyNotificationProjector(),
  ];
  return [projectUpToEachSettlement(projectors), ...(options.projectors ?? [])];
}

/** The batch as runs: each ends right after an entry that settles or voids a market. */
export function cutAfterEachSettlement<Entry extends JournalEntry<ExchangeCommand, ExchangeEvent>>(
  entries: readonly Entry[],
): (readonly Entry[])[] {
  const runs: (readonly Entry[])[] = [];
  let start = 0;
  entries.forEach((entry, index) => {
    if (entry.events.some((event) => event.type === "MarketSettled" || event.type === "MarketVoided")) {
      runs.push(entries.slice(start, index + 1));
      start = index + 1;
    }
  });
  if (start === 0) runs.push(entries);
  else if (start < entries.length) runs.push(entries.slice(start));
  return runs;
}

function projectUpToEachSettlement(projectors: readonly ExchangeProjector[]): ExchangeProjector {
  const projector = async (client: PostgresClient, entries: Entries) => {
    for (const run of cutAfterEachSettlement(entries)) {
      for (const projector of projectors) await projector(client, run);
    }
  };
  // A batch the notifications take in one statement settles nothing, so it is one run.
  const oneStatement = writerOfAll<ExchangeCommand, ExchangeEvent>(projectors);
  return oneStatement === undefined ? projector : Object.assign(projector, { oneStatement });
}
