// GET /admin/withdrawals and POST /admin/withdrawals/{id}/approve · /reject · /complete (DESIGN §5):
// the operator's side of the withdrawal workflow. The list (newest first, `count` and `records` in
// `data` like the user's history) is how the operator finds what waits for review (status=PENDING). approve: PENDING → APPROVED (still frozen); reject: PENDING or APPROVED →
// REJECTED (amount + fee back to available); complete: APPROVED → COMPLETED (the amount leaves,
// the fee is platform income). Each answers the withdrawal as it now is, with its owner.

import { type Static, Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { Withdrawal } from "../../../contract/partner/wallet.js";
import { parseId } from "../../../contract/wire-format.js";
import type { ExchangeCommand } from "../../../core/commands.js";
import { reject } from "../../../core/errors.js";
import {
  type WithdrawalRecord,
  type WithdrawalRecordStatus,
  withdrawalRecordStatuses,
} from "../../../store/exchange-read-models.js";
import type { PlatformDeps } from "../../deps.js";
import { badRequest, sendRejection, sendServiceError } from "../../partner/errors.js";
import { PageFields, resolvePage } from "../../partner/pagination.js";
import { withdrawalView } from "../../partner/views/wallet-view.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const AdminWithdrawal = Type.Object({ ...Withdrawal.properties, userId: Type.String() });
const WithdrawalParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
type WithdrawalParams = Static<typeof WithdrawalParams>;
const WithdrawalListQuery = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 16, description: withdrawalRecordStatuses.join(", ") })),
  userId: Type.Optional(Type.String({ maxLength: 32, description: "Only this user's" })),
  ...PageFields,
});
type WithdrawalListQuery = Static<typeof WithdrawalListQuery>;
const WithdrawalList = Type.Object({
  count: Type.Integer({ description: "Matching withdrawals in all pages" }),
  records: Type.Array(AdminWithdrawal, { description: "Newest first" }),
});
const knownStatuses: ReadonlySet<string> = new Set(withdrawalRecordStatuses);

const actions = {
  approve: {
    summary: "Approve a pending withdrawal (it stays frozen until completed)",
    command: "ApproveWithdrawal",
  },
  reject: {
    summary: "Reject a pending or approved withdrawal (amount + fee back to available)",
    command: "RejectWithdrawal",
  },
  complete: {
    summary: "Mark an approved withdrawal as sent (amount and fee leave the balance)",
    command: "CompleteWithdrawal",
  },
} as const;

export default defineRoutes((app, deps) => {
  app.get(
    "/admin/withdrawals",
    {
      schema: {
        summary: "Withdrawals of every user, newest first; filter by status and user",
        tags: ["Wallet"],
        querystring: WithdrawalListQuery,
        response: partnerResponses(WithdrawalList),
      },
    },
    async (request, reply) => {
      const query: WithdrawalListQuery = request.query;
      const page = resolvePage(query.page, query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const status = query.status?.toUpperCase();
      if (status !== undefined && !knownStatuses.has(status)) {
        return sendServiceError(
          reply,
          badRequest(`status must be one of ${withdrawalRecordStatuses.join(", ")}`),
        );
      }
      let userId: number | undefined;
      if (query.userId !== undefined) {
        userId = parseId(query.userId);
        if (userId === undefined) return sendRejection(reply, reject("USER_NOT_FOUND"));
      }
      const found = await deps.exchangeReadModels.withdrawals(
        { userId, status: status as WithdrawalRecordStatus | undefined },
        page.value,
      );
      return ok({ count: found.total, records: found.records.map(adminWithdrawalView) });
    },
  );

  for (const [action, { summary, command }] of Object.entries(actions)) {
    app.post(
      `/admin/withdrawals/:id/${action}`,
      {
        schema: {
          summary,
          tags: ["Wallet"],
          params: WithdrawalParams,
          response: partnerResponses(AdminWithdrawal),
        },
      },
      async (request, reply) => {
        const params: WithdrawalParams = request.params;
        const withdrawalId = parseId(params.id);
        if (withdrawalId === undefined) return sendRejection(reply, reject("WITHDRAWAL_NOT_FOUND"));
        const result = await deps.engine.submit({ type: command, withdrawalId } satisfies ExchangeCommand);
        if (!result.ok) return sendRejection(reply, result.rejection);
        return ok(await adminView(deps, withdrawalId));
      },
    );
  }
});

async function adminView(deps: PlatformDeps, withdrawalId: number) {
  // Projected in the same commit as the command, so the read model already shows the new status.
  const withdrawal = await deps.exchangeReadModels.withdrawalById(withdrawalId);
  if (withdrawal === undefined) throw new Error(`withdrawal ${withdrawalId} is missing from the read model`);
  return adminWithdrawalView(withdrawal);
}

function adminWithdrawalView(withdrawal: WithdrawalRecord) {
  return { ...withdrawalView(withdrawal), userId: String(withdrawal.userId) };
}
