// GET /deposit/address and GET /deposit/history (DESIGN §4, §8). Deposits are credited by the
// operator's chain watcher through POST /admin/deposits; the user sees its address and what arrived.

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { DepositAddress, DepositHistory, HistoryQuery } from "../../../contract/partner/wallet.js";
import { depositNetwork } from "../../../wallet/deposit-addresses.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendServiceError } from "../errors.js";
import { resolvePage } from "../pagination.js";
import { requireSession } from "../session.js";
import { depositView, walletCoinId } from "../views/wallet-view.js";

const tags = ["Wallet"];

export default defineRoutes((app, deps) => {
  app.get(
    "/deposit/address",
    {
      schema: {
        summary: "The session user's deposit address (ERC20 USDT; the same every time)",
        tags,
        response: partnerResponses(DepositAddress),
      },
      preHandler: requireSession,
    },
    async (request) =>
      ok({
        coinId: walletCoinId,
        address: deps.depositAddresses.addressOf(request.user.userId, deps.nowMs()),
        network: depositNetwork,
      }),
  );

  app.get(
    "/deposit/history",
    {
      schema: {
        summary: "The session user's credited deposits, newest first",
        description: "`count` and `records` inside `data`.",
        tags,
        querystring: HistoryQuery,
        response: partnerResponses(DepositHistory),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const found = await deps.exchangeReadModels.deposits(request.user.userId, page.value);
      return ok({ count: found.total, records: found.records.map(depositView) });
    },
  );
});
