// POST /admin/withdrawals/{id}/approve · /reject · /complete (DESIGN §5): the operator's side of
// the withdrawal workflow. approve: PENDING → APPROVED (still frozen); reject: PENDING or APPROVED →
// REJECTED (amount + fee back to available); complete: APPROVED → COMPLETED (the amount leaves,
// the fee is platform income). Each answers the withdrawal as it now is, with its owner.

import { type Static, Type } from "typebox";
import type { ExchangeCommand } from "../../../core/commands.js";
import { reject } from "../../../core/errors.js";
import type { PlatformDeps } from "../../deps.js";
import { ok, partnerResponses } from "../../partner/envelope.js";
import { sendRejection } from "../../partner/errors.js";
import { Withdrawal } from "../../partner/schemas/wallet.js";
import { withdrawalView } from "../../partner/views/wallet-view.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { parseId } from "../../shared/wire-format.js";

const AdminWithdrawal = Type.Object({ ...Withdrawal.properties, userId: Type.String() });
const WithdrawalParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
type WithdrawalParams = Static<typeof WithdrawalParams>;

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
  return { ...withdrawalView(withdrawal), userId: String(withdrawal.userId) };
}
