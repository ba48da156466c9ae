// A voided exclusive market in the SQLite read models: its positions read by SQL and their
// claimable amounts set (src/store/exchange-projection/exclusive.ts computes them, and every other
// row of the exclusive markets' events). The exchange projector writes the step's positions first.

import type { ExclusiveMarketFinishedEvent } from "../../core/exclusive/events.js";
import type { OptionIndex } from "../../core/option-index.js";
import { exclusiveVoidClaimables } from "../exchange-projection/exclusive.js";
import type { SqliteDatabase } from "./database.js";
import { prepareBig } from "./exchange-rows.js";

export function createExclusiveVoidWriter(db: SqliteDatabase): (event: ExclusiveMarketFinishedEvent) => void {
  const statements = {
    positionsOfMarket: prepareBig<[number], { position_id: bigint; option_index: bigint; held: bigint }>(
      db,
      `SELECT p.position_id, o.option_index, p.shares + p.frozen_shares AS held
       FROM exchange_positions p JOIN market_options o ON o.option_id = p.option_id WHERE p.market_id = ?`,
    ),
    setClaimable: db.prepare("UPDATE exchange_positions SET claimable = ? WHERE position_id = ?"),
  };
  return (event) => {
    if (!event.voided) return;
    const holders = statements.positionsOfMarket.all(event.marketId).map((row) => ({
      positionId: Number(row.position_id),
      optionIndex: Number(row.option_index) as OptionIndex,
      held: row.held,
    }));
    for (const [positionId, claimable] of exclusiveVoidClaimables(event, holders)) {
      statements.setClaimable.run(claimable, positionId);
    }
  };
}
