// The read models an engine leader projects into PostgreSQL in every commit, in order (the SQLite
// twin is createExchangeProjectors in src/exchange/exchange-host.ts): the exchange's read models,
// merchant commissions and the legacy settlement notifications (createPostgresExchangeProjectors,
// cut after each settlement), then the market catalogue and search. The identity tables come
// first: the commission projector reads them.

import type { ExchangeCommand, ExchangeEvent } from "../core/exchange.js";
import type { PostgresPool } from "../store/postgres/database.js";
import type { PostgresProjector } from "../store/postgres/engine-store.js";
import {
  applyPostgresExchangeMigrations,
  createPostgresExchangeProjectors,
} from "../store/postgres/exchange-projectors.js";
import { openPostgresIdentityStore } from "../store/postgres/identity.js";
import { openPostgresMarketCatalog } from "../store/postgres/market-catalog.js";

export interface PostgresEngineProjectors {
  readonly projectors: PostgresProjector<ExchangeCommand, ExchangeEvent>[];
  /** Stops what the projectors keep open (the catalogue's change listener). */
  close(): Promise<void>;
}

export async function openPostgresEngineProjectors(pool: PostgresPool): Promise<PostgresEngineProjectors> {
  // Applies the identity migrations (the commission projector joins users and partners).
  await openPostgresIdentityStore(pool);
  await applyPostgresExchangeMigrations(pool);
  const catalog = await openPostgresMarketCatalog(pool);
  return {
    projectors: createPostgresExchangeProjectors({ projectors: [catalog.projector] }),
    close: () => catalog.close(),
  };
}
