// The read models an engine leader projects into PostgreSQL in every commit, in order (the SQLite
// twin is createExchangeProjectors in src/exchange/exchange-host.ts). Each comes from the adapter of
// its port in src/store/postgres/; a port whose adapter does not exist yet is listed in
// missingPostgresProjectors, and the engine node says so at start: its journal is complete, but
// that read model is not written until the adapter is there.

import type { ExchangeCommand, ExchangeEvent } from "../core/exchange.js";
import type { PostgresPool } from "../store/postgres/database.js";
import type { PostgresProjector } from "../store/postgres/engine-store.js";

/** Read models with no PostgreSQL projector in this build (empty once every adapter is merged). */
export const missingPostgresProjectors: readonly string[] = [
  "exchange read models (orders, trades, ledger, positions, markets, deposits)",
  "merchant commissions",
  "legacy settlement notifications",
  "market catalogue and search",
];

export async function openPostgresEngineProjectors(
  _pool: PostgresPool,
): Promise<PostgresProjector<ExchangeCommand, ExchangeEvent>[]> {
  return [];
}
