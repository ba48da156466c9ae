// The exchange read models' queries on SQLite; written once in the port
// (src/store/exchange-read-model-queries.ts). What is SQLite's own: a user's orders, trades and
// trading ledger entries are read through the user history index (user-history-index.ts), and a
// rare ledger type through its partial index. The tables: exchange-schema.ts; the projector that
// fills them: exchange-read-models.ts.

import type { Statement } from "better-sqlite3";
import {
  exchangeReadModelsOn,
  exchangeReadStatements,
  type UserHistoryReads,
} from "../exchange-read-model-queries.js";
import type { Row } from "../exchange-read-model-rows.js";
import type { ExchangeReadModels, Page } from "../exchange-read-models.js";
import { pageWindow } from "../page-window.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { exchangeReadModelMigrations, isTradingLedgerType, rareLedgerTypeWhere } from "./exchange-schema.js";
import { sqliteStatements } from "./statements.js";
import { createUserHistoryReader } from "./user-history-index.js";

/** A user's history through the user history index; a rare ledger type through its partial index. */
function sqliteUserHistory(db: SqliteDatabase): UserHistoryReads {
  const userHistory = createUserHistoryReader(db);
  const rareTypeCount: Statement = db
    .prepare(`SELECT count(*) FROM exchange_ledger WHERE ${rareLedgerTypeWhere}`)
    .pluck();
  const rareTypePage: Statement = db
    .prepare(
      `SELECT * FROM exchange_ledger WHERE ${rareLedgerTypeWhere} ORDER BY entry_id DESC LIMIT ? OFFSET ?`,
    )
    .safeIntegers(true);
  const page = (found: { rows: Row[]; total: number }): Page<Row> => ({
    records: found.rows,
    total: found.total,
  });
  return {
    async orders(filter, request) {
      return page(userHistory("exchange_orders", filter, pageWindow(request)));
    },
    async trades(filter, request) {
      return page(userHistory("exchange_trades", filter, pageWindow(request)));
    },
    async ledger(userId, request, { type }) {
      if (type === undefined || isTradingLedgerType(type)) {
        return page(userHistory("exchange_ledger", { userId, type }, pageWindow(request)));
      }
      const { limit, offset } = pageWindow(request);
      const total = rareTypeCount.get(userId, type) as number;
      const rows = total <= offset ? [] : (rareTypePage.all(userId, type, limit, offset) as Row[]);
      return { records: rows, total };
    },
  };
}

export function createSqliteExchangeReadModels(db: SqliteDatabase): ExchangeReadModels {
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  return exchangeReadModelsOn(
    sqliteStatements(db, exchangeReadStatements, { safeIntegers: true }),
    sqliteUserHistory(db),
  );
}
