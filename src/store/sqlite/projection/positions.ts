// Positions in exchange_positions: loaded into the core's Position shape so that fills move them by
// the core's own average-cost rules (src/core/wallet/positions.ts), then saved whole.

import { newPosition, type Position } from "../../../core/wallet/positions.js";
import type { SqliteDatabase } from "../database.js";
import { big, prepareBig, type Row } from "../exchange-rows.js";
import type { PoolProjectionHelpers } from "../pool-projection.js";

export type PositionRows = Pick<PoolProjectionHelpers, "loadPosition" | "savePosition">;

export function createPositionRows(db: SqliteDatabase): PositionRows {
  const selectPosition = prepareBig<[number], Row>(
    db,
    "SELECT * FROM exchange_positions WHERE position_id = ?",
  );
  const upsertPosition = db.prepare(
    `INSERT INTO exchange_positions (position_id, user_id, market_id, outcome_id, option_id, shares,
       frozen_shares, cost, realized_pnl) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (position_id) DO UPDATE SET shares = excluded.shares, frozen_shares = excluded.frozen_shares,
       cost = excluded.cost, realized_pnl = excluded.realized_pnl`,
  );

  /** The stored position, or a new empty one for a user's first shares of the option. */
  const loadPosition = (
    positionId: number,
    userId: number,
    optionId: number,
    marketId: number,
    outcomeId: number,
  ): Position => {
    const row = selectPosition.get(positionId);
    if (row === undefined) return newPosition(positionId, userId, marketId, outcomeId, optionId);
    return {
      positionId,
      userId,
      marketId,
      outcomeId,
      optionId,
      shares: big(row.shares),
      frozenShares: big(row.frozen_shares),
      cost: big(row.cost),
      realizedPnl: big(row.realized_pnl),
    };
  };

  const savePosition = (position: Position): void => {
    upsertPosition.run(
      position.positionId,
      position.userId,
      position.marketId,
      position.outcomeId,
      position.optionId,
      position.shares,
      position.frozenShares,
      position.cost,
      position.realizedPnl,
    );
  };

  return { loadPosition, savePosition };
}
