// A core for the snapshot worker that is the exchange's, except that on a worker thread its evolve
// throws on one deposit: a worker whose copy of the state breaks in the middle of its life (an
// evolve that throws, a text it cannot decode), not at start-up.

import { isMainThread } from "node:worker_threads";
import { exchangeStateCodec, exchangeDecider as real } from "../../src/core/exchange.js";

export const poisonedTxHash = "0xpoison";

export const exchangeDecider: typeof real = {
  ...real,
  evolve(state, event) {
    if (!isMainThread && event.type === "DepositCredited" && event.txHash === poisonedTxHash)
      throw new Error("the worker's copy broke");
    return real.evolve(state, event);
  },
};

export { exchangeStateCodec };
