// GET /admin/users: users of every partner, newest first, with their USDT balance and the sessions
// they hold now, so the operator can find a user (by the partner's user id, e-mail, name or id)
// before revoking their sessions (users.ts) or crediting a deposit.

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { isoSeconds, parseId } from "../../../contract/wire-format.js";
import { balanceOf } from "../../../core/exchange.js";
import { formatAtoms } from "../../../core/money.js";
import { sendServiceError } from "../../partner/errors.js";
import { PageFields, PageFieldsSchema, pageFields, resolvePage } from "../../partner/pagination.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const User = Type.Object({
  userId: Type.String(),
  merchantId: Type.String(),
  partnerName: Type.String(),
  marchantUserId: Type.String(),
  email: Type.String(),
  userName: Type.String(),
  available: Type.String({ description: "USDT" }),
  frozen: Type.String({ description: "USDT" }),
  activeSessions: Type.Integer(),
  createdAt: Type.String(),
});
const ListQuery = Type.Object({
  ...PageFields,
  keyword: Type.Optional(
    Type.String({ maxLength: 200, description: "Start of the partner's user id, e-mail or name; or the id" }),
  ),
  merchantId: Type.Optional(Type.String({ maxLength: 32, description: "Only this partner's users" })),
});

export default defineRoutes((app, deps) => {
  const queries = deps.consoleQueries;
  app.get(
    "/admin/users",
    {
      schema: {
        summary: "Users of every partner, newest first, with balances and live sessions",
        tags: ["Users"],
        querystring: ListQuery,
        response: partnerResponses(Type.Object({ ...PageFieldsSchema, records: Type.Array(User) })),
      },
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const merchantId = request.query.merchantId;
      // An id that names no partner finds nobody, as an unknown one does.
      const partnerId =
        merchantId === undefined || merchantId === "" ? undefined : (parseId(merchantId) ?? -1);
      const found = await queries.users(
        { keyword: request.query.keyword, partnerId },
        page.value,
        deps.nowMs(),
      );
      const balances = await deps.engine.read((state) =>
        found.records.map((user) => balanceOf(state, user.userId)),
      );
      return ok({
        ...pageFields(page.value, found.total),
        records: found.records.map((user, index) => ({
          userId: String(user.userId),
          merchantId: String(user.partnerId),
          partnerName: user.partnerName,
          marchantUserId: user.marchantUserId,
          email: user.email,
          userName: user.userName,
          available: formatAtoms(balances[index]!.available),
          frozen: formatAtoms(balances[index]!.frozen),
          activeSessions: user.activeSessions,
          createdAt: isoSeconds(user.createdAtMs),
        })),
      });
    },
  );
});
