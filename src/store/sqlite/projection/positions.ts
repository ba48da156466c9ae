// Positions in exchange_positions: loaded into the core's Position shape so that fills move them by
// the core's own average-cost rules (src/core/wallet/positions.ts), then saved whole. A projection
// step moves the same position many times (a maker's fills, an order's frozen shares): each is read
// on first use, kept in memory through the step and written once at its end (flush), in the same
// transaction, as the balances are (balances.ts). What a step wrote is kept for the next ones
// (kept-rows.ts), by user and option: a position moved in every step is read once.

import { newPosition, type Position } from "../../../core/wallet/positions.js";
import type { SqliteDatabase } from "../database.js";
import { big, prepareBig, type Row } from "../exchange-rows.js";
import { createBatchInsert } from "./batch-insert.js";
import { KeptRows, keptRowsMax } from "./kept-rows.js";

export interface BatchPositions {
  /** The position as this step has it: the stored one on first use, or a new empty one. */
  readonly loadPosition: (
    positionId: number,
    userId: number,
    optionId: number,
    marketId: number,
    outcomeId: number,
  ) => Position;
  /** Keeps the position as moved, written at the step's end. */
  readonly savePosition: (position: Position) => void;
  /** The user's position in the option as this step has it, if any. */
  readonly positionOf: (userId: number, optionId: number) => Position | undefined;
  /**
   * Writes every position the step moved. Before anything reads or writes exchange_positions by SQL
   * (the lifecycle's settlement, the pools, the exclusive markets), and at the step's end.
   */
  readonly flush: () => void;
  /** Forgets what is kept (after a flush, or a rollback). */
  readonly clear: () => void;
  /**
   * Forgets the positions kept from earlier steps too: a step failed, or something else writes
   * exchange_positions by SQL (they may no longer be what the table holds).
   */
  readonly forgetKept: () => void;
}

/** The positions loaded this step, by id (`dirty` once moved) and by user and option. */
class StepPositions {
  readonly byId = new Map<number, { position: Position; dirty: boolean }>();
  /** `${userId}/${optionId}` → position id, for positionOf. */
  readonly idByOption = new Map<string, number>();

  keep(position: Position, dirty: boolean): void {
    this.byId.set(position.positionId, { position, dirty });
    this.idByOption.set(optionKey(position.userId, position.optionId), position.positionId);
  }

  clear(): void {
    this.byId.clear();
    this.idByOption.clear();
  }
}

const optionKey = (userId: number, optionId: number) => `${userId}/${optionId}`;

export function createBatchPositions(db: SqliteDatabase): BatchPositions {
  const step = new StepPositions();
  /** As the earlier steps wrote them, by `${userId}/${optionId}`. */
  const stored = new KeptRows<string, Position>(keptRowsMax);
  const { loadPosition, positionOf } = createPositionReads(db, step, stored);
  const { flush, clear } = createPositionWrites(db, step, stored);
  return {
    loadPosition,
    savePosition: (position) => step.keep(position, true),
    positionOf,
    flush,
    clear,
    forgetKept: () => stored.clear(),
  };
}

/** A position as the step has it: kept this step, kept from an earlier one, or read from SQLite. */
function createPositionReads(
  db: SqliteDatabase,
  step: StepPositions,
  stored: KeptRows<string, Position>,
): Pick<BatchPositions, "loadPosition" | "positionOf"> {
  const selectPosition = prepareBig<[number], Row>(
    db,
    "SELECT * FROM exchange_positions WHERE position_id = ?",
  );
  const selectPositionIdOf = prepareBig<[number, number], { position_id: bigint }>(
    db,
    "SELECT position_id FROM exchange_positions WHERE user_id = ? AND option_id = ?",
  );
  const loadPosition: BatchPositions["loadPosition"] = (
    positionId,
    userId,
    optionId,
    marketId,
    outcomeId,
  ) => {
    const found = step.byId.get(positionId);
    if (found !== undefined) return found.position;
    const known = stored.get(optionKey(userId, optionId));
    if (known !== undefined && known.positionId === positionId) {
      const position = { ...known };
      step.keep(position, false);
      return position;
    }
    const row = selectPosition.get(positionId);
    const position: Position =
      row === undefined
        ? newPosition(positionId, userId, marketId, outcomeId, optionId)
        : {
            positionId,
            userId,
            marketId: Number(row.market_id),
            outcomeId: Number(row.outcome_id),
            optionId,
            shares: big(row.shares),
            frozenShares: big(row.frozen_shares),
            cost: big(row.cost),
            realizedPnl: big(row.realized_pnl),
          };
    step.keep(position, false);
    return position;
  };
  const positionOf: BatchPositions["positionOf"] = (userId, optionId) => {
    const key = optionKey(userId, optionId);
    const positionId = step.idByOption.get(key) ?? stored.get(key)?.positionId;
    if (positionId !== undefined) return loadPosition(positionId, userId, optionId, 0, 0);
    const row = selectPositionIdOf.get(userId, optionId);
    return row === undefined ? undefined : loadPosition(Number(row.position_id), userId, optionId, 0, 0);
  };
  return { loadPosition, positionOf };
}

/** Writes the positions the step moved, many to a statement (batch-insert.ts), and keeps them all. */
function createPositionWrites(
  db: SqliteDatabase,
  step: StepPositions,
  stored: KeptRows<string, Position>,
): Pick<BatchPositions, "flush" | "clear"> {
  const upsertPositions = createBatchInsert<unknown[]>(
    db,
    `INSERT INTO exchange_positions (position_id, user_id, market_id, outcome_id, option_id, shares,
       frozen_shares, cost, realized_pnl)`,
    9,
    `ON CONFLICT (position_id) DO UPDATE SET shares = excluded.shares, frozen_shares = excluded.frozen_shares,
       cost = excluded.cost, realized_pnl = excluded.realized_pnl`,
  );
  const clear = (): void => {
    upsertPositions.clear();
    step.clear();
  };
  const flush = (): void => {
    for (const { position, dirty } of step.byId.values()) {
      stored.set(optionKey(position.userId, position.optionId), { ...position });
      if (!dirty) continue;
      upsertPositions.add([
        position.positionId,
        position.userId,
        position.marketId,
        position.outcomeId,
        position.optionId,
        position.shares,
        position.frozenShares,
        position.cost,
        position.realizedPnl,
      ]);
    }
    upsertPositions.flush();
    clear();
  };
  return { flush, clear };
}
