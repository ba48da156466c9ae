// The exchange read models' projector on PostgreSQL: the same rows as the SQLite projector
// (src/store/sqlite/exchange-read-models.ts and its projection/ writers), written the way PostgreSQL
// is fast: a round trip costs far more than the rows it carries, so a batch is projected in memory
// and written with a fixed number of statements, whatever its size.
//
// Per batch: one read (the balances, positions and outcome options the batch touches), then the
// events are applied to that in-memory state in journal order, then one statement writes every
// table the order-book path touches (a chain of data-modifying CTEs, each an `unnest` of column
// arrays: orders, fills, trades, ledger, balances, positions, price points, deposits, market
// totals). Each touched balance and position is written once per batch. The rare events (market
// creation and lifecycle, withdrawals, pool settlement) write with their own statements as they come;
// those that read positions (settlement, void, a parimutuel pool's settlement) first flush what the
// batch has buffered, so they read exactly what SQLite's statement-per-event projector would.

import type { ExchangeCommand } from "../../core/commands.js";
import type {
  ExchangeEvent,
  LifecycleEvent,
  MarketCreatedEvent,
  PositionClaimedEvent,
} from "../../core/events.js";
import type { ExclusiveMarketFinishedEvent } from "../../core/exclusive/events.js";
import type { OptionIndex } from "../../core/option-index.js";
import type { PoolSettledEvent } from "../../core/pools/events.js";
import { newPosition, type Position } from "../../core/wallet/positions.js";
import type { JournalEntry } from "../../engine/store.js";
import {
  type OrderAmend as AmendRow,
  applyRows,
  type ClaimableRow,
  type LedgerRow,
  type OrderRow,
  type ProjectionReads,
  type RowWriter,
} from "../exchange-projection/event-rows.js";
import {
  exclusiveMarketFinishedRows,
  exclusiveVoidClaimables,
  positionsConvertedRows,
} from "../exchange-projection/exclusive.js";
import { depositRows } from "../exchange-projection/ledger.js";
import { lifecycleRows } from "../exchange-projection/lifecycle.js";
import { marketRowOf } from "../exchange-projection/markets.js";
import { orderAmendedRows, orderPlacedRows, orderReleasedRows } from "../exchange-projection/orders.js";
import { poolClaimables, poolSettledRows, poolTradeRows } from "../exchange-projection/pools.js";
import { tradeRows } from "../exchange-projection/trades.js";
import { type WithdrawalEvent, withdrawalRows } from "../exchange-projection/withdrawals.js";
import {
  type BatchStatementWriter,
  joinParts,
  type OneStatementRider,
  type StatementPart,
  statementOf,
} from "./batch-statement.js";
import type { PostgresClient, PostgresPool } from "./database.js";
import type { PostgresProjector } from "./engine-store.js";
import { type CommissionAccrual, type CommissionFees, commissionAccrualSql } from "./merchant-commissions.js";
import { plansOnceInStep } from "./step-planning.js";

type Entries = readonly JournalEntry<ExchangeCommand, ExchangeEvent>[];

// ---------------------------------------------------------------------------------------------
// Statements. Named, so each connection prepares them once.

// Each key is looked up by a LATERAL point query, so the plan is an index probe per key whatever
// the planner believes of the table's size (a plan cached while a table was small stays cheap).
const prefetchStatement = {
  name: "predex-exchange-prefetch",
  text: `SELECT 'b' AS kind, k.user_id AS id, k.user_id, NULL::bigint AS market_id, NULL::bigint AS outcome_id,
                NULL::bigint AS option_id, b.available AS a, b.frozen AS b, NULL::bigint AS cost, NULL::bigint AS pnl
         FROM unnest($1::bigint[]) AS k(user_id)
         CROSS JOIN LATERAL (SELECT available, frozen FROM exchange_balances WHERE user_id = k.user_id) b
         UNION ALL
         SELECT 'p', p.position_id, p.user_id, p.market_id, p.outcome_id, p.option_id, p.shares, p.frozen_shares,
                p.cost, p.realized_pnl
         FROM unnest($2::bigint[]) AS k(position_id)
         CROSS JOIN LATERAL (SELECT * FROM exchange_positions WHERE position_id = k.position_id) p
         UNION ALL
         SELECT 'p', p.position_id, p.user_id, p.market_id, p.outcome_id, p.option_id, p.shares, p.frozen_shares,
                p.cost, p.realized_pnl
         FROM unnest($3::bigint[], $4::bigint[]) AS k(user_id, option_id)
         CROSS JOIN LATERAL (
           SELECT * FROM exchange_positions WHERE user_id = k.user_id AND option_id = k.option_id
         ) p
         UNION ALL
         SELECT 'o', o.option_id, NULL, NULL, o.outcome_id, o.option_id, o.option_index, NULL, NULL, NULL
         FROM unnest($5::bigint[]) AS k(outcome_id)
         CROSS JOIN LATERAL (
           SELECT option_id, outcome_id, option_index FROM market_options WHERE outcome_id = k.outcome_id
         ) o`,
};

/**
 * The CTE of each buffered table, its parameters numbered from $1 (one array per column). A flush is
 * the CTEs of the tables the batch has rows for, joined into one statement (joinParts renumbers
 * them): on their own in a batch's transaction, or a part of the batch's one statement
 * (batch-statement.ts). A table with no rows is left out rather than bound to empty arrays: PostgreSQL
 * plans and starts every CTE of a statement, and an orders batch never credits a deposit.
 *
 * In the batch's one statement it is named (parsed and analysed once per connection) only where the
 * connections plan every execution for their parameters (customPlansOnly, database.ts; the engine
 * store checks at open), and unnamed elsewhere, as in the transaction of statements. Never a cached
 * generic plan: one is made per connection at its sixth run, cannot know how many rows an array
 * holds (it guesses 100), and one made while exchange_orders held a few hundred rows joined the
 * order changes by scanning the whole table (a hash join over a sequential scan), a cost that grows
 * with every order ever placed (3.8 ms a batch at 26,000 orders in bench:orders). A custom plan
 * probes the primary key per changed order at any size; planning costs about 0.5 ms a batch
 * (pg_stat_statements, track_planning).
 */
const flushCtes = {
  newOrders: `new_orders AS (
      INSERT INTO exchange_orders (order_id, user_id, market_id, outcome_id, option_id, side, order_type,
        time_in_force, limit_price, shares, amount, filled_shares, filled_amount, fee_paid, status,
        client_order_id, expires_at_ms, created_at_ms, updated_at_ms)
      SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[],
        $7::text[], $8::text[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[],
        $14::bigint[], $15::text[], $16::text[], $17::bigint[], $18::bigint[], $19::bigint[])
    )`,
  orderChanges: `order_changes AS (
      UPDATE exchange_orders o SET filled_shares = o.filled_shares + c.shares,
        filled_amount = o.filled_amount + c.amount, fee_paid = o.fee_paid + c.fee, status = c.status,
        updated_at_ms = c.updated_at_ms
      FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[])
        AS c(order_id, shares, amount, fee, status, updated_at_ms)
      WHERE o.order_id = c.order_id
    )`,
  orderAmends: `order_amends AS (
      UPDATE exchange_orders o SET limit_price = a.limit_price, shares = a.shares,
        filled_shares = a.filled_shares, filled_amount = a.filled_amount, fee_paid = a.fee_paid,
        status = a.status, updated_at_ms = a.updated_at_ms
      FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[],
        $7::text[], $8::bigint[])
        AS a(order_id, limit_price, shares, filled_shares, filled_amount, fee_paid, status, updated_at_ms)
      WHERE o.order_id = a.order_id
    )`,
  trades: `trades AS (
      INSERT INTO exchange_trades (trade_id, role, order_id, user_id, market_id, outcome_id, option_id, side,
        cross_type, price, shares, fee, time_ms)
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[],
        $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::bigint[],
        $13::bigint[])
    )`,
  ledger: `ledger AS (
      INSERT INTO exchange_ledger (user_id, type, amount, frozen_delta, available_after, frozen_after, ref_id,
        time_ms)
      SELECT user_id, type, amount, frozen_delta, available_after, frozen_after, ref_id, time_ms
      FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[],
        $7::text[], $8::bigint[]) WITH ORDINALITY
        AS l(user_id, type, amount, frozen_delta, available_after, frozen_after, ref_id, time_ms, ordinal)
      ORDER BY ordinal
    )`,
  balances: `balances AS (
      INSERT INTO exchange_balances (user_id, available, frozen)
      SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
      ON CONFLICT (user_id) DO UPDATE SET available = excluded.available, frozen = excluded.frozen
    )`,
  positions: `positions AS (
      INSERT INTO exchange_positions (position_id, user_id, market_id, outcome_id, option_id, shares,
        frozen_shares, cost, realized_pnl)
      SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[],
        $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[])
      ON CONFLICT (position_id) DO UPDATE SET shares = excluded.shares, frozen_shares = excluded.frozen_shares,
        cost = excluded.cost, realized_pnl = excluded.realized_pnl
    )`,
  pricePoints: `price_points AS (
      INSERT INTO exchange_price_points (option_id, time_ms, trade_id, market_id, outcome_id, price)
      SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[],
        $6::bigint[])
    )`,
  deposits: `deposits AS (
      INSERT INTO exchange_deposits (tx_hash, user_id, amount, credited_at_ms)
      SELECT tx_hash, user_id, amount, credited_at_ms
      FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) WITH ORDINALITY
        AS d(tx_hash, user_id, amount, credited_at_ms, ordinal)
      ORDER BY ordinal
    )`,
  marketTotals: `market_totals AS (
      UPDATE markets m SET volume = m.volume + t.volume, fee_income = m.fee_income + t.fees
      FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS t(market_id, volume, fees)
      WHERE m.market_id = t.market_id
    )`,
} as const;

/** The batch's commission accrual, one more CTE of the flush. */
const commissionsCte = `commissions AS (\n${commissionAccrualSql}\n    )`;

const statements = {
  insertMarket: {
    name: "predex-exchange-insert-market",
    text: `WITH market AS (
        INSERT INTO markets (market_id, title, model_type, status, category_id, description, rules, tags,
          creator_id, start_time_ms, end_time_ms, created_at_ms, details, exclusive)
        VALUES ($1, $2, $3, 'draft', $4, $5, $6, $7, $8, $9, $10, $11, $12, $20)
      ), outcomes AS (
        INSERT INTO market_outcomes (outcome_id, market_id, name)
        SELECT outcome_id, $1, name FROM unnest($13::bigint[], $14::text[]) AS o(outcome_id, name)
      )
      INSERT INTO market_options (option_id, outcome_id, market_id, option_index, title, asset_id)
      SELECT option_id, outcome_id, $1, option_index, title, asset_id
      FROM unnest($15::bigint[], $16::bigint[], $17::integer[], $18::text[], $19::text[])
        AS p(option_id, outcome_id, option_index, title, asset_id)`,
  },
  openMarket: {
    name: "predex-exchange-open-market",
    text: "UPDATE markets SET status = 'open', opened_at_ms = $1 WHERE market_id = $2",
  },
  closeMarket: {
    name: "predex-exchange-close-market",
    text: "UPDATE markets SET status = 'closed', closed_at_ms = $1 WHERE market_id = $2",
  },

  resolved: {
    name: "predex-exchange-resolved",
    text: `UPDATE markets SET status = 'resolving', resolved_at_ms = $1, challenge_window_ends_at_ms = $2,
             challenge_bond = $3 WHERE market_id = $4`,
  },
  clearProposed: {
    name: "predex-exchange-clear-proposed",
    text: "UPDATE market_options SET proposed_win = 0 WHERE outcome_id = $1",
  },
  markProposed: {
    name: "predex-exchange-mark-proposed",
    text: "UPDATE market_options SET proposed_win = 1 WHERE option_id = $1",
  },
  challenged: {
    name: "predex-exchange-challenged",
    text: `WITH market AS (UPDATE markets SET challenged = 1 WHERE market_id = $1)
           INSERT INTO market_challenges (market_id, user_id, bond, reason, challenged_at_ms)
           VALUES ($1, $2, $3, $4, $5)`,
  },
  bondOutcome: {
    name: "predex-exchange-bond-outcome",
    text: "UPDATE market_challenges SET bond_outcome = $1, bond_outcome_at_ms = $2 WHERE market_id = $3",
  },

  settled: {
    name: "predex-exchange-settled",
    text: `WITH market AS (UPDATE markets SET status = 'settled', settled_at_ms = $1 WHERE market_id = $2)
           UPDATE market_options SET is_win = CASE WHEN option_id = ANY($3::bigint[]) THEN 1 ELSE 0 END
           WHERE market_id = $2`,
  },
  settlePositions: {
    name: "predex-exchange-settle-positions",
    text: `UPDATE exchange_positions SET status = 'settled',
             claimable = CASE WHEN option_id IN (SELECT option_id FROM market_options WHERE market_id = $1 AND is_win = 1)
               THEN shares + frozen_shares ELSE 0 END
           WHERE market_id = $1`,
  },
  voided: {
    name: "predex-exchange-voided",
    text: `WITH market AS (UPDATE markets SET status = 'void', voided_at_ms = $1 WHERE market_id = $2)
           UPDATE exchange_positions SET status = 'settled', claimable = (shares + frozen_shares) / 2
           WHERE market_id = $2`,
  },
  claimed: {
    name: "predex-exchange-claimed",
    text: `UPDATE exchange_positions SET status = 'claimed', claimable = 0, claimed_amount = $1, claimed_at_ms = $2,
             claim_transaction_id = $3 WHERE position_id = $4`,
  },
  insertWithdrawal: {
    name: "predex-exchange-insert-withdrawal",
    text: `INSERT INTO exchange_withdrawals (withdrawal_id, user_id, amount, fee, address, status,
             requested_at_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, 'PENDING', $6, $6)`,
  },
  withdrawalStatus: {
    name: "predex-exchange-withdrawal-status",
    text: "UPDATE exchange_withdrawals SET status = $1, updated_at_ms = $2 WHERE withdrawal_id = $3",
  },
  winningOption: {
    name: "predex-exchange-winning-option",
    text: "SELECT option_id FROM market_options WHERE outcome_id = $1 AND is_win = 1",
  },
  positionsOfOutcome: {
    name: "predex-exchange-positions-of-outcome",
    text: "SELECT position_id, option_id, shares + frozen_shares AS held FROM exchange_positions WHERE outcome_id = $1",
  },
  positionsOfMarket: {
    name: "predex-exchange-positions-of-market",
    text: `SELECT p.position_id, o.option_index, p.shares + p.frozen_shares AS held
           FROM exchange_positions p JOIN market_options o ON o.option_id = p.option_id WHERE p.market_id = $1`,
  },
  setClaimable: {
    name: "predex-exchange-set-claimable",
    text: `UPDATE exchange_positions p SET claimable = c.claimable
           FROM unnest($1::bigint[], $2::bigint[]) AS c(position_id, claimable) WHERE p.position_id = c.position_id`,
  },
} as const;

// ---------------------------------------------------------------------------------------------
// The batch's buffers.

/** A user's USDT in atoms, as the batch has moved it so far. */
interface BalanceSum {
  available: bigint;
  frozen: bigint;
}

interface NewOrder {
  readonly values: unknown[];
}

/** Indexes into NewOrder.values that amends, fills and ends change. */
const orderColumn = {
  limitPrice: 8,
  shares: 9,
  filledShares: 11,
  filledAmount: 12,
  feePaid: 13,
  status: 14,
  updatedAtMs: 18,
} as const;

/**
 * An amended order's row as the amend left it (absolute), plus the fills and end that came after it
 * in the batch. Each order is in at most one of the batch's new orders, changes and amends, so no
 * statement updates a row twice.
 */
interface OrderAmend {
  readonly limitPrice: bigint;
  readonly shares: bigint;
  filledShares: bigint;
  filledAmount: bigint;
  feePaid: bigint;
  status: string;
  updatedAtMs: number;
}

interface OrderChange {
  shares: bigint;
  amount: bigint;
  fee: bigint;
  status: string;
  updatedAtMs: number;
}

/** Column arrays of one table, filled row by row, bound as unnest() parameters. */
class Columns {
  readonly arrays: unknown[][];
  constructor(count: number) {
    this.arrays = Array.from({ length: count }, () => []);
  }
  push(...values: unknown[]): void {
    for (let index = 0; index < values.length; index += 1) this.arrays[index]!.push(values[index]);
  }
  get length(): number {
    return this.arrays[0]!.length;
  }
}

type Row = Record<string, unknown>;

const num = (value: unknown): number => Number(value as bigint);

function positionOfRow(row: Row, shares: unknown, frozenShares: unknown): Position {
  return {
    positionId: num(row.position_id ?? row.id),
    userId: num(row.user_id),
    marketId: num(row.market_id),
    outcomeId: num(row.outcome_id),
    optionId: num(row.option_id),
    shares: shares as bigint,
    frozenShares: frozenShares as bigint,
    cost: (row.cost as bigint) ?? 0n,
    realizedPnl: (row.realized_pnl ?? row.pnl) as bigint,
  };
}

/**
 * Balances and positions as the projector last wrote them, kept across batches: the projector is
 * the only writer of balances and of a position's shares, cost and PnL (the lifecycle statements
 * touch only its status and claimable amounts), so while batches follow one another without a gap
 * or a failure, what it wrote is what the table holds, and a batch of known users reads nothing.
 */
class ProjectedState {
  readonly balances = new Map<number, BalanceSum>();
  readonly positions = new Map<number, Position>();
  /** `${userId}:${optionId}` → position id, or null when the user has no position there. */
  readonly positionIds = new Map<string, number | null>();
  /** Sequence of the last entry of the last batch projected to the end; undefined when unknown. */
  lastSequence: bigint | undefined;

  clear(): void {
    this.balances.clear();
    this.positions.clear();
    this.positionIds.clear();
    this.lastSequence = undefined;
  }
}

/** Users or positions kept in memory at most; past it the state is dropped and read again. */
export const projectedStateEntriesMax = 2_000_000;

/** One batch's projection: the state it read, what it has changed, and the rows it will write. */
class ExchangeBatch {
  /** The batch's transaction, or (preparing a part of the batch's one statement) the pool, for reads. */
  readonly #client: PostgresClient | PostgresPool;
  readonly #optionIds: Map<number, readonly [number, number]>;
  readonly #balances: Map<number, BalanceSum>;
  readonly #dirtyBalances = new Set<number>();
  readonly #positions: Map<number, Position>;
  readonly #positionIds: Map<string, number | null>;
  readonly #dirtyPositions = new Set<number>();
  /** Position ids the prefetch looked for: one it did not find is new, no need to ask again. */
  readonly #prefetchedPositionIds = new Set<number>();
  #newOrders = new Map<number, NewOrder>();
  #orderChanges = new Map<number, OrderChange>();
  #orderAmends = new Map<number, OrderAmend>();
  #trades = new Columns(13);
  #ledger = new Columns(8);
  #pricePoints = new Columns(6);
  #deposits = new Columns(4);
  #marketTotals = new Map<number, { volume: bigint; fees: bigint }>();

  constructor(
    client: PostgresClient | PostgresPool,
    optionIds: Map<number, readonly [number, number]>,
    state: ProjectedState,
  ) {
    this.#client = client;
    this.#optionIds = optionIds;
    this.#balances = state.balances;
    this.#positions = state.positions;
    this.#positionIds = state.positionIds;
  }

  /** Reads, in one round trip, what the batch's events will need of the stored state. */
  async prefetch(entries: Entries): Promise<void> {
    const userIds = new Set<number>();
    const positionIds = new Set<number>();
    const pairs = new Map<string, [number, number]>();
    const outcomeIds = new Set<number>();
    // Only what is not known from earlier batches.
    const wantUser = (userId: number) => {
      if (!this.#balances.has(userId)) userIds.add(userId);
    };
    const wantPosition = (positionId: number) => {
      if (!this.#positions.has(positionId)) positionIds.add(positionId);
    };
    const wantPair = (userId: number, optionId: number) => {
      const key = `${userId}:${optionId}`;
      if (!this.#positionIds.has(key)) pairs.set(key, [userId, optionId]);
    };
    for (const entry of entries) {
      for (const event of entry.events) {
        switch (event.type) {
          case "TradeExecuted":
            wantUser(event.makerUserId);
            wantUser(event.takerUserId);
            wantPosition(event.makerPositionId);
            wantPosition(event.takerPositionId);
            if (!this.#optionIds.has(event.outcomeId)) outcomeIds.add(event.outcomeId);
            break;
          case "PoolTradeExecuted":
            wantUser(event.userId);
            wantPosition(event.positionId);
            if (!this.#optionIds.has(event.outcomeId)) outcomeIds.add(event.outcomeId);
            break;
          case "OrderPlaced":
            wantUser(event.userId);
            if (event.frozenShares !== 0n) wantPair(event.userId, event.optionId);
            break;
          case "OrderCancelled":
          case "OrderExpired":
            wantUser(event.userId);
            if (event.releasedShares !== 0n) wantPair(event.userId, event.optionId);
            break;
          case "OrderAmended":
            wantUser(event.userId);
            if (event.releasedShares !== event.frozenShares) wantPair(event.userId, event.optionId);
            break;
          case "DeadMansSwitchArmed":
          case "DeadMansSwitchDisarmed":
          case "DeadMansSwitchTripped":
            break; // nothing of the user is read or written
          case "PositionsConverted":
            wantUser(event.userId);
            for (const leg of [...event.burned, ...event.minted]) wantPosition(leg.positionId);
            break;
          default:
            if ("userId" in event && typeof event.userId === "number") wantUser(event.userId);
        }
      }
    }
    if (userIds.size + positionIds.size + pairs.size + outcomeIds.size === 0) return;
    const pairList = [...pairs.values()];
    const result = await this.#client.query<Row>({
      ...prefetchStatement,
      values: [
        [...userIds],
        [...positionIds],
        pairList.map((pair) => pair[0]),
        pairList.map((pair) => pair[1]),
        [...outcomeIds],
      ],
    });
    for (const userId of userIds) this.#balances.set(userId, { available: 0n, frozen: 0n });
    for (const key of pairs.keys()) this.#positionIds.set(key, null);
    for (const positionId of positionIds) this.#prefetchedPositionIds.add(positionId);
    const options = new Map<number, { optionId: number; index: number }[]>();
    for (const row of result.rows) {
      if (row.kind === "b") {
        this.#balances.set(num(row.id), { available: row.a as bigint, frozen: row.b as bigint });
      } else if (row.kind === "p") {
        this.#remember(positionOfRow(row, row.a, row.b));
      } else {
        const outcomeId = num(row.outcome_id);
        const list = options.get(outcomeId) ?? [];
        list.push({ optionId: num(row.option_id), index: Number(row.a) });
        options.set(outcomeId, list);
      }
    }
    for (const [outcomeId, list] of options) {
      if (list.length !== 2) continue;
      list.sort((a, b) => a.index - b.index);
      this.#optionIds.set(outcomeId, [list[0]!.optionId, list[1]!.optionId]);
    }
  }

  /**
   * The shared event functions' reads (src/store/exchange-projection/): answered from memory, since
   * the prefetch has read everything the batch's events look up. One it did not foresee is a bug.
   */
  readonly reads: ProjectionReads = {
    balanceOf: (userId) => this.#balances.get(userId) ?? notPrefetched(`the balance of user ${userId}`),
    position: (positionId, userId, optionId, marketId, outcomeId) => {
      const known = this.#positions.get(positionId);
      if (known !== undefined) return known;
      if (!this.#prefetchedPositionIds.has(positionId)) return notPrefetched(`position ${positionId}`);
      const position = newPosition(positionId, userId, marketId, outcomeId, optionId);
      this.#remember(position);
      return position;
    },
    positionOf: (userId, optionId) => {
      const positionId = this.#positionIds.get(`${userId}:${optionId}`);
      if (positionId === undefined)
        return notPrefetched(`the position of user ${userId} in option ${optionId}`);
      return positionId === null ? undefined : this.#positions.get(positionId);
    },
    optionIdsOf: (outcomeId) =>
      this.#optionIds.get(outcomeId) ?? notPrefetched(`the options of outcome ${outcomeId}`),
  };

  /** Where the shared event functions' rows go: the batch's buffers, written by its flush. */
  readonly writer: RowWriter = {
    ledger: (row: LedgerRow) => {
      this.#balances.set(row[0], { available: row[4], frozen: row[5] });
      this.#dirtyBalances.add(row[0]);
      this.#ledger.push(...row);
    },
    position: (position) => {
      this.#remember(position);
      this.#dirtyPositions.add(position.positionId);
    },
    trade: (row) => this.#trades.push(...row),
    pricePoint: (row) => this.#pricePoints.push(...row),
    orderPlaced: (row) => this.insertOrder(row),
    orderAmend: (amend) => this.amendOrder(amend),
    orderChange: (change) =>
      this.changeOrder(change.orderId, change.shares, change.amount, change.fee, change.status, change.atMs),
    marketTotals: ([marketId, volume, fees]) => this.addMarketTotals(marketId, volume, fees),
    deposit: (row) => this.#deposits.push(...row),
  };

  #remember(position: Position): void {
    this.#positions.set(position.positionId, position);
    this.#positionIds.set(`${position.userId}:${position.optionId}`, position.positionId);
  }

  insertOrder(row: OrderRow): void {
    this.#newOrders.set(row[0], { values: row });
  }

  /** A fill of a resting order (shares, amount and fee added) or its end (zeros): its new status. */
  changeOrder(
    orderId: number,
    shares: bigint,
    amount: bigint,
    fee: bigint,
    status: string,
    atMs: number,
  ): void {
    const placed = this.#newOrders.get(orderId);
    const amended = this.#orderAmends.get(orderId);
    if (amended !== undefined) {
      amended.filledShares += shares;
      amended.filledAmount += amount;
      amended.feePaid += fee;
      amended.status = status;
      amended.updatedAtMs = atMs;
      return;
    }
    if (placed !== undefined) {
      const values = placed.values;
      values[orderColumn.filledShares] = (values[orderColumn.filledShares] as bigint) + shares;
      values[orderColumn.filledAmount] = (values[orderColumn.filledAmount] as bigint) + amount;
      values[orderColumn.feePaid] = (values[orderColumn.feePaid] as bigint) + fee;
      values[orderColumn.status] = status;
      values[orderColumn.updatedAtMs] = atMs;
      return;
    }
    const change = this.#orderChanges.get(orderId);
    if (change === undefined) {
      this.#orderChanges.set(orderId, { shares, amount, fee, status, updatedAtMs: atMs });
      return;
    }
    change.shares += shares;
    change.amount += amount;
    change.fee += fee;
    change.status = status;
    change.updatedAtMs = atMs;
  }

  /**
   * An amend: its totals are the order's whole life (the fills earlier in this batch included), so
   * they replace what the batch had buffered for the order rather than add to it.
   */
  amendOrder(event: AmendRow): void {
    const placed = this.#newOrders.get(event.orderId);
    if (placed !== undefined) {
      const values = placed.values;
      values[orderColumn.limitPrice] = event.limitPrice;
      values[orderColumn.shares] = event.shares;
      values[orderColumn.filledShares] = event.filledShares;
      values[orderColumn.filledAmount] = event.filledAmount;
      values[orderColumn.feePaid] = event.feePaid;
      values[orderColumn.status] = event.status;
      values[orderColumn.updatedAtMs] = event.atMs;
      return;
    }
    this.#orderChanges.delete(event.orderId);
    this.#orderAmends.set(event.orderId, {
      limitPrice: event.limitPrice,
      shares: event.shares,
      filledShares: event.filledShares,
      filledAmount: event.filledAmount,
      feePaid: event.feePaid,
      status: event.status,
      updatedAtMs: event.atMs,
    });
  }

  addMarketTotals(marketId: number, volume: bigint, fees: bigint): void {
    const totals = this.#marketTotals.get(marketId);
    if (totals === undefined) this.#marketTotals.set(marketId, { volume, fees });
    else {
      totals.volume += volume;
      totals.fees += fees;
    }
  }

  /** Writes everything buffered so far in one statement; the running balances and positions stay. */
  async flush(commissionFees?: CommissionFees): Promise<void> {
    const part = this.takeFlushPart(commissionFees);
    if (part === undefined) return;
    // Named (planned once) inside a read-model step; elsewhere planned for each batch (flushCtes).
    const prepared = plansOnceInStep(this.#client);
    await this.#client.query(statementOf(joinParts([part]), { prepared }));
  }

  /**
   * Everything buffered so far as the CTEs of one statement (undefined when there is nothing to
   * write), and the buffers emptied; the running balances and positions stay.
   */
  takeFlushPart(commissionFees?: CommissionFees): StatementPart | undefined {
    const orders = new Columns(19);
    for (const order of this.#newOrders.values()) orders.push(...order.values);
    const changes = new Columns(6);
    for (const [orderId, change] of this.#orderChanges) {
      changes.push(orderId, change.shares, change.amount, change.fee, change.status, change.updatedAtMs);
    }
    const amends = new Columns(8);
    for (const [orderId, amend] of this.#orderAmends) {
      amends.push(
        orderId,
        amend.limitPrice,
        amend.shares,
        amend.filledShares,
        amend.filledAmount,
        amend.feePaid,
        amend.status,
        amend.updatedAtMs,
      );
    }
    const balances = new Columns(3);
    for (const userId of this.#dirtyBalances) {
      const balance = this.#balances.get(userId)!;
      balances.push(userId, balance.available, balance.frozen);
    }
    const positions = new Columns(9);
    for (const positionId of this.#dirtyPositions) {
      const p = this.#positions.get(positionId)!;
      positions.push(
        p.positionId,
        p.userId,
        p.marketId,
        p.outcomeId,
        p.optionId,
        p.shares,
        p.frozenShares,
        p.cost,
        p.realizedPnl,
      );
    }
    const totals = new Columns(3);
    for (const [marketId, sums] of this.#marketTotals) totals.push(marketId, sums.volume, sums.fees);
    const tables: [string, Columns][] = [
      [flushCtes.newOrders, orders],
      [flushCtes.orderChanges, changes],
      [flushCtes.orderAmends, amends],
      [flushCtes.trades, this.#trades],
      [flushCtes.ledger, this.#ledger],
      [flushCtes.balances, balances],
      [flushCtes.positions, positions],
      [flushCtes.pricePoints, this.#pricePoints],
      [flushCtes.deposits, this.#deposits],
      [flushCtes.marketTotals, totals],
    ];
    const parts: StatementPart[] = tables.flatMap(([ctes, columns]) =>
      columns.length === 0 ? [] : [{ ctes, values: columns.arrays }],
    );
    if (commissionFees !== undefined) parts.push({ ctes: commissionsCte, values: [...commissionFees] });
    const part = parts.length === 0 ? undefined : joinParts(parts);
    this.#newOrders = new Map();
    this.#orderChanges = new Map();
    this.#orderAmends = new Map();
    this.#trades = new Columns(13);
    this.#ledger = new Columns(8);
    this.#pricePoints = new Columns(6);
    this.#deposits = new Columns(4);
    this.#marketTotals = new Map();
    this.#dirtyBalances.clear();
    this.#dirtyPositions.clear();
    return part;
  }
}

// ---------------------------------------------------------------------------------------------
// The events.

/**
 * Creates the projector the engine runs in every commit (the tables must exist: see the migrations).
 * With `commissions`, the batch's merchant commission accrual is written by the same flush statement.
 */
export function createPostgresExchangeProjector(
  options: { readonly commissions?: CommissionAccrual } = {},
): PostgresProjector<ExchangeCommand, ExchangeEvent> & OneStatementRider<ExchangeCommand, ExchangeEvent> {
  // Options never change once created, so the Yes/No ids of an outcome are safe to keep in memory.
  const optionIds = new Map<number, readonly [number, number]>();
  const state = new ProjectedState();

  /** A batch over the kept state, or over none when this batch does not follow the last one projected. */
  const startBatch = (reader: PostgresClient | PostgresPool, entries: Entries) => {
    // The kept balances and positions are what the table holds only if this batch directly follows
    // the last one projected to its end (and that one committed: the engine stops on a failed
    // commit, and a retry or another leader's batches show as a sequence that does not follow).
    const first = entries[0]!.sequence;
    const follows = state.lastSequence !== undefined && first === state.lastSequence + 1n;
    const large = state.balances.size + state.positions.size > projectedStateEntriesMax;
    if (!follows || large) state.clear();
    state.lastSequence = undefined;
    return new ExchangeBatch(reader, optionIds, state);
  };

  const projector = async (client: PostgresClient, entries: Entries) => {
    if (entries.length === 0) return;
    const batch = startBatch(client, entries);
    await batch.prefetch(entries);
    for (const entry of entries) {
      for (const event of entry.events) await project(client, batch, event, optionIds);
    }
    await batch.flush(await options.commissions?.feesOf(client, entries));
    state.lastSequence = entries.at(-1)!.sequence;
  };

  const oneStatement: BatchStatementWriter<ExchangeCommand, ExchangeEvent> = {
    writesInOneStatement: (entries) => entries.every((entry) => entry.events.every(isBuffered)),
    async prepare(reader, entries) {
      if (entries.length === 0) return { part: undefined, committed: () => {} };
      const batch = startBatch(reader, entries);
      await batch.prefetch(entries);
      for (const entry of entries) {
        for (const event of entry.events) {
          if (!isBuffered(event))
            throw new Error(`read models: ${event.type} is not written in one statement`);
          await projectBuffered(batch, event);
        }
      }
      const part = batch.takeFlushPart(await options.commissions?.feesOf(reader, entries));
      // Kept as written from here: the next batch may be prepared before this one's answer
      // (pipelined), and a statement that fails stops the engine (batch-statement.ts).
      state.lastSequence = entries.at(-1)!.sequence;
      return { part, committed: () => {} };
    },
  };
  return Object.assign(projector, { oneStatement });
}

/**
 * The events whose rows a batch only buffers (written by the flush): a batch of nothing else can be
 * a part of the batch's one statement. The others write with statements of their own as they come.
 */
const bufferedEvents = [
  "DepositCredited",
  "OrderPlaced",
  "OrderRepeated",
  "TradeExecuted",
  "OrderCancelled",
  "OrderExpired",
  "OrderAmended",
  "DeadMansSwitchArmed",
  "DeadMansSwitchDisarmed",
  "DeadMansSwitchTripped",
  "AmmPoolFunded",
  "PoolTradeExecuted",
  "PositionsConverted",
] as const satisfies readonly ExchangeEvent["type"][];
const bufferedEventTypes: ReadonlySet<string> = new Set(bufferedEvents);

/** The events a batch only buffers (written by its flush), and those that write as they come. */
type BufferedEvent = Extract<ExchangeEvent, { type: (typeof bufferedEvents)[number] }>;
type WritingEvent = Exclude<ExchangeEvent, BufferedEvent>;

function isBuffered(event: ExchangeEvent): event is BufferedEvent {
  return bufferedEventTypes.has(event.type);
}

async function project(
  client: PostgresClient,
  batch: ExchangeBatch,
  event: ExchangeEvent,
  optionIds: Map<number, readonly [number, number]>,
): Promise<void> {
  if (isBuffered(event)) await projectBuffered(batch, event);
  else await projectWriting(client, batch, event, optionIds);
}

/** Projects an event into the batch's buffers and running balances: it reads, never writes. */
async function projectBuffered(batch: ExchangeBatch, event: BufferedEvent): Promise<void> {
  switch (event.type) {
    case "DepositCredited":
      applyRows(depositRows(event, batch.reads), batch.writer);
      break;
    case "OrderPlaced":
      applyRows(orderPlacedRows(event, batch.reads), batch.writer);
      break;
    case "OrderRepeated":
    // No read model keeps the dead-man's switch; its cancels are OrderCancelled events.
    case "DeadMansSwitchArmed":
    case "DeadMansSwitchDisarmed":
    case "DeadMansSwitchTripped":
      break;
    case "TradeExecuted":
      applyRows(tradeRows(event, batch.reads), batch.writer);
      break;
    case "OrderCancelled":
    case "OrderExpired":
      applyRows(orderReleasedRows(event, batch.reads), batch.writer);
      break;
    case "OrderAmended":
      applyRows(orderAmendedRows(event, batch.reads), batch.writer);
      break;
    case "AmmPoolFunded":
      // Platform money into the outcome's collateral: no user's balance moves.
      break;
    case "PoolTradeExecuted":
      applyRows(poolTradeRows(event, batch.reads), batch.writer);
      break;
    case "PositionsConverted":
      applyRows(positionsConvertedRows(event, batch.reads), batch.writer);
      break;
    default: {
      const unreachable: never = event;
      throw new Error(`read models: unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Projects an event that writes with statements of its own, inside the batch's transaction. */
async function projectWriting(
  client: PostgresClient,
  batch: ExchangeBatch,
  event: WritingEvent,
  optionIds: Map<number, readonly [number, number]>,
): Promise<void> {
  switch (event.type) {
    case "MarketCreated":
      await onMarketCreated(client, event, optionIds);
      break;
    case "MarketOpened":
      await client.query({ ...statements.openMarket, values: [event.atMs, event.marketId] });
      break;
    case "MarketClosed":
      await client.query({ ...statements.closeMarket, values: [event.atMs, event.marketId] });
      break;
    case "MarketResolved":
    case "ResolutionChallenged":
    case "ChallengeBondReturned":
    case "ChallengeBondForfeited":
    case "MarketSettled":
    case "MarketVoided":
    case "PositionClaimed":
      await onLifecycle(client, batch, event);
      break;
    case "WithdrawalRequested":
    case "WithdrawalApproved":
    case "WithdrawalReleased":
    case "WithdrawalCompleted":
      await onWithdrawal(client, batch, event);
      break;
    case "PoolSettled":
      await onPoolSettled(client, batch, event);
      break;
    case "ExclusiveMarketFinished":
      await onExclusiveMarketFinished(client, batch, event);
      break;
    default: {
      const unreachable: never = event;
      throw new Error(`read models: unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

async function onMarketCreated(
  client: PostgresClient,
  event: MarketCreatedEvent,
  optionIds: Map<number, readonly [number, number]>,
): Promise<void> {
  const outcomes = new Columns(2);
  const options = new Columns(5);
  for (const outcome of event.outcomes) {
    outcomes.push(outcome.outcomeId, outcome.name);
    for (const option of outcome.options) {
      options.push(option.optionId, outcome.outcomeId, option.optionIndex, option.title, option.assetId);
    }
  }
  await client.query({
    ...statements.insertMarket,
    values: [...marketRowOf(event), ...outcomes.arrays, ...options.arrays, event.exclusive === true ? 1 : 0],
  });
  for (const outcome of event.outcomes) {
    const sorted = [...outcome.options].sort((a, b) => a.optionIndex - b.optionIndex);
    if (sorted.length === 2) optionIds.set(outcome.outcomeId, [sorted[0]!.optionId, sorted[1]!.optionId]);
  }
}

async function onLifecycle(
  client: PostgresClient,
  batch: ExchangeBatch,
  event: LifecycleEvent | PositionClaimedEvent,
): Promise<void> {
  switch (event.type) {
    case "MarketResolved":
      await client.query({
        ...statements.resolved,
        values: [event.atMs, event.windowEndsAtMs, event.challengeBond, event.marketId],
      });
      for (const winner of event.winners) {
        await client.query({ ...statements.clearProposed, values: [winner.outcomeId] });
        await client.query({ ...statements.markProposed, values: [winner.optionId] });
      }
      break;
    case "ResolutionChallenged":
      await client.query({
        ...statements.challenged,
        values: [event.marketId, event.userId, event.bond, event.reason, event.atMs],
      });
      break;
    case "ChallengeBondReturned":
      await client.query({ ...statements.bondOutcome, values: ["RETURNED", event.atMs, event.marketId] });
      break;
    case "ChallengeBondForfeited":
      await client.query({ ...statements.bondOutcome, values: ["FORFEITED", event.atMs, event.marketId] });
      break;
    case "MarketSettled":
      // Reads the positions: everything the batch has moved so far is written first.
      await batch.flush();
      await client.query({
        ...statements.settled,
        values: [event.atMs, event.marketId, event.winners.map((winner) => winner.optionId)],
      });
      await client.query({ ...statements.settlePositions, values: [event.marketId] });
      break;
    case "MarketVoided":
      await batch.flush();
      await client.query({ ...statements.voided, values: [event.atMs, event.marketId] });
      break;
    case "PositionClaimed":
      await client.query({
        ...statements.claimed,
        values: [event.amount, event.atMs, event.transactionId, event.positionId],
      });
      break;
    default: {
      const unreachable: never = event;
      throw new Error(`read models: unknown lifecycle event ${JSON.stringify(unreachable)}`);
    }
  }
  applyRows(lifecycleRows(event, batch.reads), batch.writer);
}

/** A withdrawal's own row by a statement of its own, as it comes; its ledger entries into the batch. */
async function onWithdrawal(
  client: PostgresClient,
  batch: ExchangeBatch,
  event: WithdrawalEvent,
): Promise<void> {
  const rows = withdrawalRows(event, batch.reads);
  const created = rows.newWithdrawal;
  if (created !== undefined) await client.query({ ...statements.insertWithdrawal, values: created });
  if (rows.withdrawalStatus !== undefined)
    await client.query({ ...statements.withdrawalStatus, values: rows.withdrawalStatus });
  applyRows(rows, batch.writer);
}

/** A parimutuel pool's fee and dust, then its holders read (the batch's positions written first) and their claims set. */
async function onPoolSettled(
  client: PostgresClient,
  batch: ExchangeBatch,
  event: PoolSettledEvent,
): Promise<void> {
  applyRows(poolSettledRows(event, batch.reads), batch.writer);
  if (event.modelType !== "parimutuel") return;
  await batch.flush();
  const winner = (await client.query<Row>({ ...statements.winningOption, values: [event.outcomeId] }))
    .rows[0];
  const winningOptionId = winner === undefined ? undefined : num(winner.option_id);
  const holders = await client.query<Row>({ ...statements.positionsOfOutcome, values: [event.outcomeId] });
  const claimables = poolClaimables(
    event,
    holders.rows.map((row) => ({
      positionId: num(row.position_id),
      optionId: num(row.option_id),
      held: row.held as bigint,
    })),
    winningOptionId,
  );
  await setClaimables(client, claimables);
}

/** An exclusive market's dust; a void's positions read (the batch's positions written first) and their claims set. */
async function onExclusiveMarketFinished(
  client: PostgresClient,
  batch: ExchangeBatch,
  event: ExclusiveMarketFinishedEvent,
): Promise<void> {
  applyRows(exclusiveMarketFinishedRows(event, batch.reads), batch.writer);
  if (!event.voided) return;
  await batch.flush();
  const holders = await client.query<Row>({ ...statements.positionsOfMarket, values: [event.marketId] });
  const claimables = exclusiveVoidClaimables(
    event,
    holders.rows.map((row) => ({
      positionId: num(row.position_id),
      optionIndex: Number(row.option_index) as OptionIndex,
      held: row.held as bigint,
    })),
  );
  await setClaimables(client, claimables);
}

async function setClaimables(client: PostgresClient, claimables: readonly ClaimableRow[]): Promise<void> {
  if (claimables.length === 0) return;
  const columns = new Columns(2);
  for (const row of claimables) columns.push(...row);
  await client.query({ ...statements.setClaimable, values: columns.arrays });
}

function notPrefetched(what: string): never {
  throw new Error(`read models: ${what} was not read before the batch (prefetch)`);
}
