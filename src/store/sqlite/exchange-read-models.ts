// The exchange's read models in the embedded SQLite file: the projector the engine runs inside each
// commit's transaction, composed here of one writer per read model (projection/). Their tables are
// exchange-schema.ts, the queries behind the trading routes exchange-read-model-queries.ts. Money
// columns are 64-bit integers of atoms, read back as bigint (safeIntegers, exchange-rows.ts), so
// nothing is ever rounded through a double.

import type { ExchangeCommand } from "../../core/commands.js";
import type { ExchangeEvent } from "../../core/events.js";
import type { ExclusiveMarketFinishedEvent } from "../../core/exclusive/events.js";
import type { PoolSettledEvent } from "../../core/pools/events.js";
import type { JournalEntry } from "../../engine/store.js";
import { applyRows } from "../exchange-projection/event-rows.js";
import { exclusiveMarketFinishedRows, positionsConvertedRows } from "../exchange-projection/exclusive.js";
import { depositRows } from "../exchange-projection/ledger.js";
import { lifecycleRows } from "../exchange-projection/lifecycle.js";
import { orderAmendedRows, orderPlacedRows, orderReleasedRows } from "../exchange-projection/orders.js";
import { poolSettledRows, poolTradeRows } from "../exchange-projection/pools.js";
import { tradeRows } from "../exchange-projection/trades.js";
import { withdrawalRows } from "../exchange-projection/withdrawals.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import type { SqliteProjector } from "./engine-store.js";
import { exchangeReadModelMigrations } from "./exchange-schema.js";
import { createExclusiveVoidWriter } from "./exclusive-projection.js";
import { createLifecycleProjection } from "./lifecycle-projection.js";
import { createPoolSettlementWriter } from "./pool-projection.js";
import { createMarketProjection } from "./projection/markets.js";
import { createStepRows } from "./projection/step-rows.js";
import { createUserHistoryIndexer } from "./user-history-index.js";
import { createWithdrawalWriter } from "./withdrawal-projection.js";

/** Creates the tables (once) and returns the projector the engine runs in every commit. */
export function createSqliteExchangeProjector(
  db: SqliteDatabase,
  options: { readonly userHistoryIndexLag?: number | undefined } = {},
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  const { onMarketCreated, onMarketOpened, onMarketClosed, optionIdsOf } = createMarketProjection(db);
  const step = createStepRows(db, optionIdsOf);
  const { reads, writer, balances, positions } = step;
  const writeLifecycle = createLifecycleProjection(db);
  const projectLifecycle = (event: Parameters<typeof lifecycleRows>[0]) => {
    writeLifecycle(event);
    applyRows(lifecycleRows(event, reads), writer);
  };
  const writeWithdrawal = createWithdrawalWriter(db);
  const projectWithdrawal = (event: Parameters<typeof withdrawalRows>[0]) => {
    const rows = withdrawalRows(event, reads);
    writeWithdrawal(rows);
    applyRows(rows, writer);
  };
  const settlePool = createPoolSettlementWriter(db);
  const voidExclusive = createExclusiveVoidWriter(db);
  const indexUserHistory = createUserHistoryIndexer(db, options.userHistoryIndexLag);
  /**
   * These read and write exchange_positions by SQL too: they see, and leave, every position written,
   * and the positions kept from earlier steps are read again after them.
   */
  const withPositionsWritten =
    <Event>(project: (event: Event) => void) =>
    (event: Event) => {
      positions.flush();
      project(event);
      positions.flush();
      positions.forgetKept();
    };
  const projectPositionsBySql = {
    lifecycle: withPositionsWritten(projectLifecycle),
    poolSettled: withPositionsWritten((event: PoolSettledEvent) => {
      applyRows(poolSettledRows(event, reads), writer);
      settlePool(event);
    }),
    exclusiveFinished: withPositionsWritten((event: ExclusiveMarketFinishedEvent) => {
      applyRows(exclusiveMarketFinishedRows(event, reads), writer);
      voidExclusive(event);
    }),
  };

  /**
   * The last sequence of the last call that returned. The balances and positions kept from earlier
   * calls are what the tables hold only if that call committed: a call that does not continue it
   * (the same entries again after a failed commit, another history) forgets them first.
   */
  let lastProjected: bigint | undefined;

  return (_db, entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    const first = entries[0];
    if (first === undefined) return;
    if (lastProjected === undefined || first.sequence !== lastProjected + 1n) {
      balances.forgetKept();
      positions.forgetKept();
    }
    lastProjected = undefined;
    let projected = false;
    try {
      projectEntries(entries);
      step.flush();
      // After every row of the batch is in: it indexes the tables by id range.
      indexUserHistory();
      projected = true;
    } finally {
      if (projected) lastProjected = entries.at(-1)!.sequence;
      // A failed batch rolls back; what it left in memory must not leak into a later one.
      step.clear();
    }
  };

  function projectEntries(entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]): void {
    for (const entry of entries) {
      for (const event of entry.events) {
        switch (event.type) {
          case "MarketCreated":
            onMarketCreated(event);
            break;
          case "MarketOpened":
            onMarketOpened(event);
            break;
          case "MarketClosed":
            onMarketClosed(event);
            break;
          case "DepositCredited":
            applyRows(depositRows(event, reads), writer);
            break;
          case "OrderPlaced":
            applyRows(orderPlacedRows(event, reads), writer);
            break;
          case "OrderRepeated":
          // No read model keeps the dead-man's switch; its cancels are OrderCancelled events.
          case "DeadMansSwitchArmed":
          case "DeadMansSwitchDisarmed":
          case "DeadMansSwitchTripped":
            break;
          case "TradeExecuted":
            applyRows(tradeRows(event, reads), writer);
            break;
          case "OrderCancelled":
          case "OrderExpired":
            applyRows(orderReleasedRows(event, reads), writer);
            break;
          case "OrderAmended":
            applyRows(orderAmendedRows(event, reads), writer);
            break;
          case "MarketResolved":
          case "ResolutionChallenged":
          case "ChallengeBondReturned":
          case "ChallengeBondForfeited":
          case "MarketSettled":
          case "MarketVoided":
          case "PositionClaimed":
            projectPositionsBySql.lifecycle(event);
            break;
          case "WithdrawalRequested":
          case "WithdrawalApproved":
          case "WithdrawalReleased":
          case "WithdrawalCompleted":
            projectWithdrawal(event);
            break;
          case "AmmPoolFunded":
            // Platform money into the outcome's collateral: no user's balance moves.
            break;
          case "PoolTradeExecuted":
            applyRows(poolTradeRows(event, reads), writer);
            break;
          case "PoolSettled":
            projectPositionsBySql.poolSettled(event);
            break;
          case "PositionsConverted":
            applyRows(positionsConvertedRows(event, reads), writer);
            break;
          case "ExclusiveMarketFinished":
            projectPositionsBySql.exclusiveFinished(event);
            break;
          default: {
            const unreachable: never = event;
            throw new Error(`read models: unknown event ${JSON.stringify(unreachable)}`);
          }
        }
      }
    }
  }
}

export { createSqliteExchangeReadModels } from "./exchange-read-model-queries.js";
export {
  exchangeReadModelMigrations,
  nonTradingLedgerCondition,
  rareLedgerTypeWhere,
} from "./exchange-schema.js";
