// GET /admin/deposits: credited deposits of every user (or one), newest first, so the operator sees
// what POST /admin/deposits and the chain watcher have credited.

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { isoSeconds, parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { formatAtoms } from "../../../core/money.js";
import { sendRejection, sendServiceError } from "../../partner/errors.js";
import { PageFields, PageFieldsSchema, pageFields, resolvePage } from "../../partner/pagination.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const Deposit = Type.Object({
  userId: Type.String(),
  amount: Type.String({ description: "USDT" }),
  txHash: Type.String(),
  creditedAt: Type.String({ description: "ISO 8601 UTC" }),
});

export default defineRoutes((app, deps) => {
  const queries = deps.consoleQueries;
  app.get(
    "/admin/deposits",
    {
      schema: {
        summary: "Credited deposits, newest first; filter by user",
        tags: ["Wallet"],
        querystring: Type.Object({ ...PageFields, userId: Type.Optional(Type.String({ maxLength: 32 })) }),
        response: partnerResponses(Type.Object({ ...PageFieldsSchema, records: Type.Array(Deposit) })),
      },
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      let userId: number | undefined;
      if (request.query.userId !== undefined && request.query.userId !== "") {
        userId = parseId(request.query.userId);
        if (userId === undefined) return sendRejection(reply, reject("USER_NOT_FOUND"));
      }
      const found = await queries.deposits({ userId }, page.value);
      return ok({
        ...pageFields(page.value, found.total),
        records: found.records.map((deposit) => ({
          userId: String(deposit.userId),
          amount: formatAtoms(deposit.amount),
          txHash: deposit.txHash,
          creditedAt: isoSeconds(deposit.creditedAtMs),
        })),
      });
    },
  );
});
