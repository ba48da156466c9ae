// Exclusive markets' events in the SQLite read models (part of the exchange projector, inside the
// same commit). A conversion is one CONVERT ledger entry (its USDT, possibly 0) and its positions
// moved by the core's own rules: the burned No shares sold at the event's proceeds, the new Yes
// shares bought at the cost they carry. An exclusive market's finish adds its dust to the market's
// fee income and, when it was voided, sets what each position claims by the core's void payout
// (a Yes share 1/n, a No share (n − 1)/n: src/core/exclusive/payout.ts).

import type { ExclusiveEvent } from "../../core/exclusive/events.js";
import { exclusiveVoidPayoutAtoms } from "../../core/exclusive/payout.js";
import type { OptionIndex } from "../../core/option-index.js";
import { recordBuy, recordSell } from "../../core/wallet/positions.js";
import type { SqliteDatabase } from "./database.js";
import { prepareBig } from "./exchange-rows.js";
import type { LedgerWriter } from "./lifecycle-projection.js";
import type { PoolProjectionHelpers } from "./pool-projection.js";

export type ExclusiveProjectionHelpers = Pick<
  PoolProjectionHelpers,
  "ledger" | "loadPosition" | "savePosition"
>;

export function createExclusiveProjection(
  db: SqliteDatabase,
  helpers: ExclusiveProjectionHelpers & { readonly ledger: LedgerWriter },
): (event: ExclusiveEvent) => void {
  const statements = {
    addFees: db.prepare("UPDATE markets SET fee_income = fee_income + ? WHERE market_id = ?"),
    positionsOfMarket: prepareBig<[number], { position_id: bigint; option_index: bigint; held: bigint }>(
      db,
      `SELECT p.position_id, o.option_index, p.shares + p.frozen_shares AS held
       FROM exchange_positions p JOIN market_options o ON o.option_id = p.option_id WHERE p.market_id = ?`,
    ),
    setClaimable: db.prepare("UPDATE exchange_positions SET claimable = ? WHERE position_id = ?"),
  };

  return (event) => {
    switch (event.type) {
      case "PositionsConverted":
        helpers.ledger(event.userId, "CONVERT", event.collateral, 0n, event.transactionId, event.atMs);
        for (const leg of event.burned) {
          const position = helpers.loadPosition(
            leg.positionId,
            event.userId,
            leg.optionId,
            event.marketId,
            leg.outcomeId,
          );
          recordSell(position, event.shares, false, leg.proceeds, 0n);
          helpers.savePosition(position);
        }
        for (const leg of event.minted) {
          const position = helpers.loadPosition(
            leg.positionId,
            event.userId,
            leg.optionId,
            event.marketId,
            leg.outcomeId,
          );
          recordBuy(position, event.shares, leg.cost, 0n);
          helpers.savePosition(position);
        }
        break;
      case "ExclusiveMarketFinished":
        if (event.dust !== 0n) statements.addFees.run(event.dust, event.marketId);
        if (!event.voided) break;
        for (const row of statements.positionsOfMarket.all(event.marketId)) {
          const optionIndex = Number(row.option_index) as OptionIndex;
          const claimable = exclusiveVoidPayoutAtoms(row.held, optionIndex, event.outcomeCount);
          statements.setClaimable.run(claimable, row.position_id);
        }
        break;
      default: {
        const unreachable: never = event;
        throw new Error(`read models: unknown exclusive market event ${JSON.stringify(unreachable)}`);
      }
    }
  };
}
