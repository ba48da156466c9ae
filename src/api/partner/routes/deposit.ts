// GET /deposit/address and GET /deposit/history (DESIGN §4, §8). Deposits are credited by the
// chain watcher (src/chain/deposit-watcher.ts) or by the operator through POST /admin/deposits; the
// user sees its address (child 0/N of the operator's xpub), what is pending and what arrived.

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { DepositAddress, DepositHistory, HistoryQuery } from "../../../contract/partner/wallet.js";
import { userPendingDepositsShownMax } from "../../../store/chain-store.js";
import { depositNetwork } from "../../../wallet/deposit-addresses.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendServiceError } from "../errors.js";
import { resolvePage } from "../pagination.js";
import { requireSession } from "../session.js";
import { depositView, uncreditedDepositView, walletCoinId } from "../views/wallet-view.js";

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
        address: await deps.depositAddresses.addressOf(request.user.userId, deps.nowMs()),
        network: depositNetwork,
      }),
  );

  app.get(
    "/deposit/history",
    {
      schema: {
        summary: "The session user's deposits: seen on chain and pending first, then credited, newest first",
        description:
          "`count` and `records` inside `data`. A transfer to the deposit address shows as PENDING as soon as it is seen, with its confirmations, and is credited once it has them.",
        tags,
        querystring: HistoryQuery,
        response: partnerResponses(DepositHistory),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const userId = request.user.userId;
      const chain = deps.chainWallet;
      // Deposits seen on chain and not credited come first (they are the newest), then the credited.
      const uncredited =
        chain === undefined
          ? { total: 0, records: [] }
          : await chain.store.uncreditedOf(userId, userPendingDepositsShownMax);
      const shown = Math.min(uncredited.total, uncredited.records.length);
      const { page: pageNumber, pageSize } = page.value;
      const offset = (pageNumber - 1) * pageSize;
      const fromUncredited = uncredited.records
        .slice(offset, offset + pageSize)
        .map((deposit) => uncreditedDepositView(deposit, chain!.watcher.head, chain!.confirmations));
      const creditedOffset = Math.max(0, offset - shown);
      const creditedWanted = pageSize - fromUncredited.length;
      const credited = await deps.exchangeReadModels.deposits(userId, {
        page: Math.floor(creditedOffset / pageSize) + 1,
        pageSize,
      });
      // The credited page is read on pageSize boundaries; cut the part this page needs.
      const skip = creditedOffset % pageSize;
      let creditedRecords = credited.records.slice(skip);
      if (creditedRecords.length < creditedWanted && skip > 0) {
        const next = await deps.exchangeReadModels.deposits(userId, {
          page: Math.floor(creditedOffset / pageSize) + 2,
          pageSize,
        });
        creditedRecords = creditedRecords.concat(next.records);
      }
      return ok({
        count: shown + credited.total,
        records: [...fromUncredited, ...creditedRecords.slice(0, creditedWanted).map(depositView)],
      });
    },
  );
});
