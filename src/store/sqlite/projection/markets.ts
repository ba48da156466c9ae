// Markets, their outcomes and options as created, their opening and closing, and the Yes/No option
// ids of an outcome (what a trade's price points are written for).

import type { MarketClosedEvent, MarketCreatedEvent, MarketOpenedEvent } from "../../../core/events.js";
import { marketRowOf } from "../../exchange-projection/markets.js";
import type { SqliteDatabase } from "../database.js";

export interface MarketProjection {
  readonly onMarketCreated: (event: MarketCreatedEvent) => void;
  readonly onMarketOpened: (event: MarketOpenedEvent) => void;
  readonly onMarketClosed: (event: MarketClosedEvent) => void;
  /** The Yes and No option ids of an outcome, in option order. */
  readonly optionIdsOf: (outcomeId: number) => readonly [number, number];
}

export function createMarketProjection(db: SqliteDatabase): MarketProjection {
  const statements = {
    insertMarket: db.prepare(
      `INSERT INTO markets (market_id, title, model_type, status, category_id, description, rules, tags,
         creator_id, start_time_ms, end_time_ms, created_at_ms, details, exclusive)
       VALUES (?, ?, ?, 'draft', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertOutcome: db.prepare("INSERT INTO market_outcomes (outcome_id, market_id, name) VALUES (?, ?, ?)"),
    insertOption: db.prepare(
      "INSERT INTO market_options (option_id, outcome_id, market_id, option_index, title, asset_id) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    openMarket: db.prepare("UPDATE markets SET status = 'open', opened_at_ms = ? WHERE market_id = ?"),
    closeMarket: db.prepare("UPDATE markets SET status = 'closed', closed_at_ms = ? WHERE market_id = ?"),
    optionsOfOutcome: db.prepare<[number], { option_id: number }>(
      "SELECT option_id FROM market_options WHERE outcome_id = ? ORDER BY option_index",
    ),
  };

  // Options never change once created, so the Yes/No ids of an outcome are safe to keep in memory.
  const optionIdsByOutcome = new Map<number, readonly [number, number]>();
  const optionIdsOf = (outcomeId: number): readonly [number, number] => {
    let ids = optionIdsByOutcome.get(outcomeId);
    if (ids === undefined) {
      const rows = statements.optionsOfOutcome.all(outcomeId);
      if (rows.length !== 2) throw new Error(`read models: outcome ${outcomeId} has no Yes/No options`);
      ids = [rows[0]!.option_id, rows[1]!.option_id];
      optionIdsByOutcome.set(outcomeId, ids);
    }
    return ids;
  };

  const onMarketCreated = (event: MarketCreatedEvent): void => {
    statements.insertMarket.run(...marketRowOf(event), event.exclusive === true ? 1 : 0);
    for (const outcome of event.outcomes) {
      statements.insertOutcome.run(outcome.outcomeId, event.marketId, outcome.name);
      for (const option of outcome.options) {
        statements.insertOption.run(
          option.optionId,
          outcome.outcomeId,
          event.marketId,
          option.optionIndex,
          option.title,
          option.assetId,
        );
      }
    }
  };
  const onMarketOpened = (event: MarketOpenedEvent): void => {
    statements.openMarket.run(event.atMs, event.marketId);
  };
  const onMarketClosed = (event: MarketClosedEvent): void => {
    statements.closeMarket.run(event.atMs, event.marketId);
  };

  return { onMarketCreated, onMarketOpened, onMarketClosed, optionIdsOf };
}
