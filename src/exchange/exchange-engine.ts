// The exchange's engine as services and surfaces see it: submit commands, read committed state,
// follow commits. Which database it commits to is the adapter's business (exchange-host.ts opens
// it on SQLite), so the transaction type is left open here (`never`: no caller may add a projector).

import type { ExchangeCommand, ExchangeEvent, ExchangeState } from "../core/exchange.js";
import type { Engine } from "../engine/engine.js";

export type ExchangeEngine = Engine<ExchangeState, ExchangeCommand, ExchangeEvent, never>;
