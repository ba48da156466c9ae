// Polymarket's last-trade-price carries the side of the last trade: BUY when its taker bought the
// token asked about, SELL when the taker sold it (for the No token of a predex book, a taker who
// bought Yes sold No's side of the trade, as /ws/market's last_trade_price says too). The committed
// state keeps the last price of every outcome but not that side, so this follows the engine's
// commits. It starts empty: after a restart an outcome's side is "" (Polymarket's "no trade" side)
// until its next trade, while its price still comes from the committed state.

import type { ExchangeEngine } from "../../../exchange/exchange-engine.js";

export type TradeSide = "BUY" | "SELL" | "";

interface LastTaker {
  readonly optionId: number;
  readonly bought: boolean;
}

export class LastTradeSides {
  readonly #byOutcome = new Map<number, LastTaker>();
  readonly #stop: () => void;
  readonly #stopReloads: () => void;

  constructor(engine: ExchangeEngine) {
    this.#stop = engine.onCommitted((entries) => {
      for (const entry of entries) {
        for (const event of entry.events) {
          if (event.type === "TradeExecuted") {
            this.#byOutcome.set(event.outcomeId, {
              optionId: event.takerOptionId,
              bought: event.takerSide === "BUY",
            });
          } else if (event.type === "PoolTradeExecuted") {
            this.#byOutcome.set(event.outcomeId, { optionId: event.optionId, bought: event.side === "BUY" });
          }
        }
      }
    });
    // A reloaded replica skipped batches: what was seen before may be stale, as after a restart.
    this.#stopReloads = engine.onReloaded?.(() => this.#byOutcome.clear()) ?? (() => {});
  }

  /** The side of the outcome's last trade seen from one of its options. */
  sideFor(outcomeId: number, optionId: number): TradeSide {
    const taker = this.#byOutcome.get(outcomeId);
    if (taker === undefined) return "";
    return taker.bought === (taker.optionId === optionId) ? "BUY" : "SELL";
  }

  close(): void {
    this.#stop();
    this.#stopReloads();
  }
}
