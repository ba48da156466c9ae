// The exchange's read models in the embedded SQLite file: the projector the engine runs inside each
// commit's transaction, composed here of one writer per read model (projection/). Their tables are
// exchange-schema.ts, the queries behind the trading routes exchange-read-model-queries.ts. Money
// columns are 64-bit integers of atoms, read back as bigint (safeIntegers, exchange-rows.ts), so
// nothing is ever rounded through a double.

import type { ExchangeCommand } from "../../core/commands.js";
import type { ExchangeEvent, LifecycleEvent, PositionClaimedEvent } from "../../core/events.js";
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
import { createMarketProjection, type MarketProjection } from "./projection/markets.js";
import { createStepRows, type StepRows } from "./projection/step-rows.js";
import { createUserHistoryIndexer } from "./user-history-index.js";
import { createWithdrawalWriter } from "./withdrawal-projection.js";

/** Creates the tables (once) and returns the projector the engine runs in every commit. */
export function createSqliteExchangeProjector(
  db: SqliteDatabase,
  options: { readonly userHistoryIndexLag?: number | undefined } = {},
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  const markets = createMarketProjection(db);
  const step = createStepRows(db, markets.optionIdsOf);
  const handlers: EventHandlers = {
    ...tradingHandlers(markets, step),
    ...settlementHandlers(db, step),
  };
  const projectEvent = (event: ExchangeEvent): void => {
    const handler = handlers[event.type] as ((event: ExchangeEvent) => void) | undefined;
    if (handler === undefined) throw new Error(`read models: unknown event ${JSON.stringify(event)}`);
    handler(event);
  };
  return createStepProjector(step, projectEvent, createUserHistoryIndexer(db, options.userHistoryIndexLag));
}

/** What projects each type of event: every type has one (the compiler checks), a no-op included. */
type EventHandlers = {
  readonly [Type in ExchangeEvent["type"]]: (event: Extract<ExchangeEvent, { type: Type }>) => void;
};

/**
 * Runs a step's entries through `projectEvent`, writes the step's buffered rows, then indexes the
 * user histories. The balances and positions kept from earlier calls are what the tables hold only
 * if that call committed: a call that does not continue the last one that returned (the same
 * entries again after a failed commit, another history) forgets them first.
 */
function createStepProjector(
  step: StepRows,
  projectEvent: (event: ExchangeEvent) => void,
  indexUserHistory: () => void,
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  /** The last sequence of the last call that returned. */
  let lastProjected: bigint | undefined;
  return (_db, entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    const first = entries[0];
    if (first === undefined) return;
    if (lastProjected === undefined || first.sequence !== lastProjected + 1n) {
      step.balances.forgetKept();
      step.positions.forgetKept();
    }
    lastProjected = undefined;
    let projected = false;
    try {
      for (const entry of entries) for (const event of entry.events) projectEvent(event);
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
}

const ignored = (): void => {};

/** Markets as created, opened and closed; deposits; orders, their fills and ends; the pools' trades. */
function tradingHandlers(
  markets: MarketProjection,
  { reads, writer }: StepRows,
): Pick<EventHandlers, TradingEventType> {
  return {
    MarketCreated: markets.onMarketCreated,
    MarketOpened: markets.onMarketOpened,
    MarketClosed: markets.onMarketClosed,
    DepositCredited: (event) => applyRows(depositRows(event, reads), writer),
    OrderPlaced: (event) => applyRows(orderPlacedRows(event, reads), writer),
    TradeExecuted: (event) => applyRows(tradeRows(event, reads), writer),
    OrderCancelled: (event) => applyRows(orderReleasedRows(event, reads), writer),
    OrderExpired: (event) => applyRows(orderReleasedRows(event, reads), writer),
    OrderAmended: (event) => applyRows(orderAmendedRows(event, reads), writer),
    // No read model keeps a repeated order or the dead-man's switch (its cancels are OrderCancelled).
    OrderRepeated: ignored,
    DeadMansSwitchArmed: ignored,
    DeadMansSwitchDisarmed: ignored,
    DeadMansSwitchTripped: ignored,
    // Platform money into the outcome's collateral: no user's balance moves.
    AmmPoolFunded: ignored,
    PoolTradeExecuted: (event) => applyRows(poolTradeRows(event, reads), writer),
    PositionsConverted: (event) => applyRows(positionsConvertedRows(event, reads), writer),
  };
}

type TradingEventType =
  | "MarketCreated"
  | "MarketOpened"
  | "MarketClosed"
  | "DepositCredited"
  | "OrderPlaced"
  | "TradeExecuted"
  | "OrderCancelled"
  | "OrderExpired"
  | "OrderAmended"
  | "OrderRepeated"
  | "DeadMansSwitchArmed"
  | "DeadMansSwitchDisarmed"
  | "DeadMansSwitchTripped"
  | "AmmPoolFunded"
  | "PoolTradeExecuted"
  | "PositionsConverted";

/** The market lifecycle, claims, withdrawals, and the pools' and exclusive markets' settlements. */
function settlementHandlers(
  db: SqliteDatabase,
  { reads, writer, positions }: StepRows,
): Omit<EventHandlers, TradingEventType> {
  const writeLifecycle = createLifecycleProjection(db);
  const writeWithdrawal = createWithdrawalWriter(db);
  const settlePool = createPoolSettlementWriter(db);
  const voidExclusive = createExclusiveVoidWriter(db);
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
  const lifecycle = withPositionsWritten((event: LifecycleEvent | PositionClaimedEvent) => {
    writeLifecycle(event);
    applyRows(lifecycleRows(event, reads), writer);
  });
  const withdrawal = (event: WithdrawalEvent) => {
    const rows = withdrawalRows(event, reads);
    writeWithdrawal(rows);
    applyRows(rows, writer);
  };
  return {
    MarketResolved: lifecycle,
    ResolutionChallenged: lifecycle,
    ChallengeBondReturned: lifecycle,
    ChallengeBondForfeited: lifecycle,
    MarketSettled: lifecycle,
    MarketVoided: lifecycle,
    PositionClaimed: lifecycle,
    WithdrawalRequested: withdrawal,
    WithdrawalApproved: withdrawal,
    WithdrawalReleased: withdrawal,
    WithdrawalCompleted: withdrawal,
    PoolSettled: withPositionsWritten((event: PoolSettledEvent) => {
      applyRows(poolSettledRows(event, reads), writer);
      settlePool(event);
    }),
    ExclusiveMarketFinished: withPositionsWritten((event: ExclusiveMarketFinishedEvent) => {
      applyRows(exclusiveMarketFinishedRows(event, reads), writer);
      voidExclusive(event);
    }),
  };
}

type WithdrawalEvent = Parameters<typeof withdrawalRows>[0];

export { createSqliteExchangeReadModels } from "./exchange-read-model-queries.js";
export {
  exchangeReadModelMigrations,
  nonTradingLedgerCondition,
  rareLedgerTypeWhere,
} from "./exchange-schema.js";
