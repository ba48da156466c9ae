// GET /account/history (DESIGN §8): every movement of the session user's USDT, newest first, with
// the page fields inside `data` (spec 000: "account history: pagination fields inside data").

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { AccountHistory, AccountHistoryQuery } from "../../../contract/partner/wallet.js";
import { type LedgerEntryType, ledgerEntryTypes } from "../../../store/exchange-read-models.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { badRequest, sendServiceError } from "../errors.js";
import { pageFields, resolvePage } from "../pagination.js";
import { requireSession } from "../session.js";
import { ledgerEntryView } from "../views/wallet-view.js";

const knownTypes: ReadonlySet<string> = new Set(ledgerEntryTypes);

export default defineRoutes((app, deps) => {
  app.get(
    "/account/history",
    {
      schema: {
        summary: "The session user's ledger: every deposit, freeze, trade, fee, claim and withdrawal",
        description:
          "`amount` and `balanceAfter` are the available balance's change and level; `frozenAmount` and `frozenAfter` the frozen balance's. The page fields are inside `data`.",
        tags: ["Account"],
        querystring: AccountHistoryQuery,
        response: partnerResponses(AccountHistory),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      let type: LedgerEntryType | undefined;
      if (request.query.type !== undefined && request.query.type !== "") {
        const wanted = request.query.type.toUpperCase();
        if (!knownTypes.has(wanted)) {
          return sendServiceError(reply, badRequest(`type must be one of ${ledgerEntryTypes.join(", ")}`));
        }
        type = wanted as LedgerEntryType;
      }
      const found = await deps.exchangeReadModels.ledger(request.user.userId, page.value, { type });
      return ok({ ...pageFields(page.value, found.total), records: found.records.map(ledgerEntryView) });
    },
  );
});
