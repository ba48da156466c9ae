// AMM and parimutuel events in the SQLite read models (part of the exchange projector, inside the
// same commit). A pool trade is one TAKER trade row (the pool is the counterparty and has no
// row), TRADE and FEE ledger entries, the position by the core's own average-cost rules, a price
// point per option (the pool's marginal price or chance after the trade), and the market's volume
// and fees. PoolSettled adds a parimutuel pool's fee and dust to the market's fee income and sets
// its positions' claimable amounts (src/core/parimutuel/parimutuel-payout.ts).

import type { PoolEvent, PoolSettledEvent, PoolTradeExecutedEvent } from "../../core/pools/events.js";
import { stakePayout } from "../../core/pools/parimutuel/parimutuel-payout.js";
import { type Position, recordBuy, recordSell } from "../../core/wallet/positions.js";
import type { SqliteDatabase } from "./database.js";
import type { LedgerWriter } from "./lifecycle-projection.js";

const atomsPerOne = 100_000_000n;

/** What the exchange projector lends the pool projection: its own helpers. */
export interface PoolProjectionHelpers {
  readonly ledger: LedgerWriter;
  readonly loadPosition: (
    positionId: number,
    userId: number,
    optionId: number,
    marketId: number,
    outcomeId: number,
  ) => Position;
  readonly savePosition: (position: Position) => void;
  readonly optionIdsOf: (outcomeId: number) => readonly [number, number];
}

export function createPoolProjection(
  db: SqliteDatabase,
  helpers: PoolProjectionHelpers,
): (event: PoolEvent) => void {
  const statements = {
    insertTrade: db.prepare(
      `INSERT INTO exchange_trades (trade_id, role, order_id, user_id, market_id, outcome_id, option_id, side,
         cross_type, price, shares, fee, time_ms) VALUES (?, 'TAKER', ?, ?, ?, ?, ?, ?, 'TRANSFER', ?, ?, ?, ?)`,
    ),
    insertPricePoint: db.prepare(
      "INSERT INTO exchange_price_points (option_id, time_ms, trade_id, market_id, outcome_id, price) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    addMarketTrade: db.prepare(
      "UPDATE markets SET volume = volume + ?, fee_income = fee_income + ? WHERE market_id = ?",
    ),
    positionsOfOutcome: db
      .prepare<[number], { position_id: bigint; option_id: bigint; held: bigint }>(
        "SELECT position_id, option_id, shares + frozen_shares AS held FROM exchange_positions WHERE outcome_id = ?",
      )
      .safeIntegers(true),
    setClaimable: db.prepare("UPDATE exchange_positions SET claimable = ? WHERE position_id = ?"),
  };

  const onTrade = (event: PoolTradeExecutedEvent): void => {
    const time = event.atMs;
    const tradeRef = String(event.tradeId);
    const averagePrice = (event.amount * atomsPerOne) / event.shares;
    statements.insertTrade.run(
      event.tradeId,
      event.orderId,
      event.userId,
      event.marketId,
      event.outcomeId,
      event.optionId,
      event.side,
      averagePrice,
      event.shares,
      event.fee,
      time,
    );
    const cash = event.side === "BUY" ? -event.amount : event.amount;
    helpers.ledger(event.userId, "TRADE", cash, 0n, tradeRef, time);
    if (event.fee !== 0n) helpers.ledger(event.userId, "FEE", -event.fee, 0n, tradeRef, time);
    if (cash - event.fee !== event.availableDelta)
      throw new Error(`read models: pool trade ${event.tradeId} entries differ from its balance delta`);
    const position = helpers.loadPosition(
      event.positionId,
      event.userId,
      event.optionId,
      event.marketId,
      event.outcomeId,
    );
    if (event.side === "BUY") recordBuy(position, event.shares, event.amount, event.fee);
    else recordSell(position, event.shares, false, event.amount, event.fee);
    helpers.savePosition(position);
    // The traded option's price after the trade, and the other option's as its complement.
    for (const optionId of helpers.optionIdsOf(event.outcomeId)) {
      const price = optionId === event.optionId ? event.priceAfter : atomsPerOne - event.priceAfter;
      statements.insertPricePoint.run(optionId, time, event.tradeId, event.marketId, event.outcomeId, price);
    }
    statements.addMarketTrade.run(event.amount, event.fee, event.marketId);
  };

  const onSettled = (event: PoolSettledEvent): void => {
    if (event.modelType !== "parimutuel") return;
    statements.addMarketTrade.run(0n, event.fee + event.dust, event.marketId);
    const winningOptionId = db
      .prepare<[number], { option_id: number }>(
        "SELECT option_id FROM market_options WHERE outcome_id = ? AND is_win = 1",
      )
      .get(event.outcomeId)?.option_id;
    const settlement = { ...event };
    for (const row of statements.positionsOfOutcome.all(event.outcomeId)) {
      const claimable = stakePayout(row.held, Number(row.option_id) === winningOptionId, settlement);
      statements.setClaimable.run(claimable, row.position_id);
    }
  };

  return (event) => {
    switch (event.type) {
      case "AmmPoolFunded":
        // Platform money into the outcome's collateral: no user's balance moves.
        break;
      case "PoolTradeExecuted":
        onTrade(event);
        break;
      case "PoolSettled":
        onSettled(event);
        break;
      default: {
        const unreachable: never = event;
        throw new Error(`read models: unknown pool event ${JSON.stringify(unreachable)}`);
      }
    }
  };
}
