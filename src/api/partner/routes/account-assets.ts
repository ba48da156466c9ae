// GET /account/assets (DESIGN §8): the session user's USDT, from the engine's committed state.

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { Asset } from "../../../contract/partner/trading.js";
import { balanceOf } from "../../../core/exchange.js";
import { formatAtoms } from "../../../core/money.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { requireSession } from "../session.js";

/** The only currency (spec 000: `coinId` is the string `2`). */
export const usdtCoinId = "2";

export default defineRoutes((app, deps) => {
  app.get(
    "/account/assets",
    {
      schema: {
        summary: "The session user's balances",
        tags: ["Account"],
        response: partnerResponses(Type.Array(Asset)),
      },
      preHandler: requireSession,
    },
    async (request) => {
      const userId = request.user.userId;
      const balance = await deps.engine.read((state) => balanceOf(state, userId));
      return ok([
        {
          coinId: usdtCoinId,
          symbol: "USDT",
          available: formatAtoms(balance.available),
          frozen: formatAtoms(balance.frozen),
          total: formatAtoms(balance.total),
        },
      ]);
    },
  );
});
