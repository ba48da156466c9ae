// Migration 3 of PostgreSQL's exchange read models (issue #31, i31-pg2): price points keyed by
// (option, time, trade), as SQLite's migration 8. The points written before it are all there after
// it, the table has its key and no other index (one B-tree written per point, not two), and every
// query that reads the table searches that key in the order it returns rows (EXPLAIN, with
// sequential scans off: a query no index serves would still show one).

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { consoleStatements } from "../../src/store/console-queries.js";
import { exchangeReadStatements } from "../../src/store/exchange-read-model-queries.js";
import { openPostgresPool } from "../../src/store/postgres/database.js";
import { postgresExchangeMigrations } from "../../src/store/postgres/exchange-schema.js";
import { applyPostgresMigrations } from "../../src/store/postgres/migrations.js";
import { preparePostgres } from "../../src/store/postgres/statements.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";

const skipReason = postgresSkipReason();
const pointsInOrder = "SELECT * FROM exchange_price_points ORDER BY option_id, time_ms, trade_id";

describe("PostgreSQL price points keyed by option and time", { skip: skipReason }, () => {
  let cluster: PostgresCluster | undefined;
  after(async () => {
    await cluster?.stop();
  });

  it("keeps every point written before the migration and serves every query from the key", async () => {
    cluster = await startPostgresCluster();
    const url = await cluster.createDatabase("price_points_key");
    const pool = openPostgresPool({ url, applicationName: "price-points-test" });
    try {
      await applyPostgresMigrations(pool, "exchange", postgresExchangeMigrations.slice(0, 2));
      await pool.query(
        `INSERT INTO exchange_price_points (option_id, time_ms, trade_id, market_id, outcome_id, price)
         SELECT option_id, 1000 + trade / 3, trade, 1, 1, 40000000 + trade * option_id
         FROM generate_series(1, 2000) AS trade, generate_series(1, 2) AS option_id`,
      );
      const before = (await pool.query(pointsInOrder)).rows;
      const applied = await applyPostgresMigrations(pool, "exchange", postgresExchangeMigrations);
      assert.deepEqual(applied.applied, [3]);
      assert.deepEqual((await pool.query(pointsInOrder)).rows, before);

      const indexes = await pool.query<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE tablename = 'exchange_price_points'",
      );
      assert.deepEqual(
        indexes.rows.map((row) => row.indexdef),
        [
          "CREATE UNIQUE INDEX exchange_price_points_pkey ON public.exchange_price_points USING btree (option_id, time_ms, trade_id)",
        ],
      );
      // The key refuses a second point of a trade in an option (a trade has one time), as the old one did.
      await assert.rejects(
        pool.query(
          "INSERT INTO exchange_price_points (option_id, time_ms, trade_id, market_id, outcome_id, price) VALUES (1, 1001, 3, 1, 1, 1)",
        ),
        /exchange_price_points_pkey/,
      );

      // Some trades the console's query joins, and statistics as a grown table has.
      await pool.query(
        `INSERT INTO exchange_trades (trade_id, role, order_id, user_id, market_id, outcome_id, option_id,
           side, cross_type, price, shares, fee, time_ms)
         SELECT trade, role, trade, 1, 1, 1, 1, 'BUY', 'NORMAL', 40000000, 100000000, 0, 1000 + trade / 3
         FROM generate_series(1, 2000) AS trade, unnest(ARRAY['TAKER', 'MAKER']) AS role`,
      );
      await pool.query("ANALYZE exchange_price_points; ANALYZE exchange_trades");
      const queries = [
        {
          statement: preparePostgres("price-points-test-history", exchangeReadStatements.pricePoints),
          values: [1, 1_100, 1_400, 50],
        },
        {
          statement: preparePostgres("price-points-test-console", consoleStatements.recentTrades),
          values: [1, 20],
        },
      ];
      const client = await pool.connect();
      try {
        await client.query("SET enable_seqscan = off");
        for (const { statement, values } of queries) {
          await client.query(`PREPARE checked AS ${statement.text}`);
          // The plan for these values, then the one plan a connection keeps for any values.
          for (const mode of ["force_custom_plan", "force_generic_plan"]) {
            await client.query(`SET plan_cache_mode = ${mode}`);
            const plan = await client.query<{ "QUERY PLAN": string }>(
              `EXPLAIN EXECUTE checked(${values.join(", ")})`,
            );
            const lines = plan.rows.map((row) => row["QUERY PLAN"]).join("\n");
            if (process.env.SHOW_PLANS) console.log(mode, lines);
            assert.match(lines, /Index Scan( Backward)? using exchange_price_points_pkey/, lines);
            assert.doesNotMatch(lines, /Seq Scan|Sort/, lines);
          }
          await client.query("DEALLOCATE checked");
        }
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
});
