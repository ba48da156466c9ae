// A stand-in for the PostgreSQL exchange read models in the catalogue's contract test, until the
// exchange adapter (src/store/postgres/exchange-projector.ts, helper pg-exchange) is merged: it
// writes only what the catalogue reads — `markets` rows (created as drafts, opened, closed) from the
// journal, inside the engine's batch like the real projector, and `exchange_positions` copied from the
// engine's state on request. Tables from test/support/postgres-foreign-tables.ts. Not a projector to
// ship: the real one replaces it in this test once merged.

import type { ExchangeEvent } from "../../src/core/events.js";
import type { ExchangeCommand, ExchangeState } from "../../src/core/exchange.js";
import { encodePlainData } from "../../src/engine/journal-codec.js";
import type { PostgresPool } from "../../src/store/postgres/database.js";
import type { PostgresProjector } from "../../src/store/postgres/engine-store.js";

export const exchangeStandInProjector: PostgresProjector<ExchangeCommand, ExchangeEvent> = async (
  client,
  entries,
) => {
  for (const entry of entries) {
    for (const event of entry.events) {
      if (event.type === "MarketCreated") {
        const details = (event.details ?? {}) as Record<string, unknown>;
        await client.query(
          `INSERT INTO markets (market_id, title, model_type, status, category_id, description, rules, tags,
             creator_id, start_time_ms, end_time_ms, created_at_ms, details)
           VALUES ($1, $2, 'ORDERBOOK', 'draft', $3, '', '', '', $4, NULL, NULL, $5, $6)`,
          [
            event.marketId,
            event.title,
            typeof details.categoryId === "string" ? details.categoryId : null,
            event.creatorId,
            event.createdAtMs,
            event.details === null ? null : encodePlainData(event.details),
          ],
        );
      } else if (event.type === "MarketOpened") {
        await client.query("UPDATE markets SET status = 'open' WHERE market_id = $1", [event.marketId]);
      } else if (event.type === "MarketClosed") {
        await client.query("UPDATE markets SET status = 'closed' WHERE market_id = $1", [event.marketId]);
      }
    }
  }
};

/** Copies every position of the engine's state into exchange_positions. */
export async function copyPositions(pool: PostgresPool, state: ExchangeState): Promise<void> {
  await pool.query("DELETE FROM exchange_positions");
  for (const account of state.accounts.values()) {
    for (const position of account.positions.values()) {
      await pool.query(
        `INSERT INTO exchange_positions (position_id, user_id, market_id, outcome_id, option_id, shares,
           frozen_shares, cost, realized_pnl) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0)`,
        [
          position.positionId,
          position.userId,
          position.marketId,
          position.outcomeId,
          position.optionId,
          position.shares,
          position.frozenShares,
        ],
      );
    }
  }
}
