// A parimutuel pool's settlement in the SQLite read models: its outcome's holders read by SQL and
// their claimable amounts set (src/store/exchange-projection/pools.ts computes them, and every
// other row of the pools' events). The exchange projector writes the step's positions first.

import type { PoolSettledEvent } from "../../core/pools/events.js";
import { poolClaimables } from "../exchange-projection/pools.js";
import type { SqliteDatabase } from "./database.js";
import { prepareBig } from "./exchange-rows.js";

export function createPoolSettlementWriter(db: SqliteDatabase): (event: PoolSettledEvent) => void {
  const statements = {
    winningOption: db.prepare<[number], { option_id: number }>(
      "SELECT option_id FROM market_options WHERE outcome_id = ? AND is_win = 1",
    ),
    positionsOfOutcome: prepareBig<[number], { position_id: bigint; option_id: bigint; held: bigint }>(
      db,
      "SELECT position_id, option_id, shares + frozen_shares AS held FROM exchange_positions WHERE outcome_id = ?",
    ),
    setClaimable: db.prepare("UPDATE exchange_positions SET claimable = ? WHERE position_id = ?"),
  };
  return (event) => {
    if (event.modelType !== "parimutuel") return;
    const winningOptionId = statements.winningOption.get(event.outcomeId)?.option_id;
    const holders = statements.positionsOfOutcome.all(event.outcomeId).map((row) => ({
      positionId: Number(row.position_id),
      optionId: Number(row.option_id),
      held: row.held,
    }));
    for (const [positionId, claimable] of poolClaimables(event, holders, winningOptionId)) {
      statements.setClaimable.run(claimable, positionId);
    }
  };
}
