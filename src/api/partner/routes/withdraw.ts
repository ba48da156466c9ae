// POST /withdraw/apply, POST /withdraw/cancel and GET /withdraw/history (DESIGN §4, §8). A request
// freezes amount + fee until the operator completes or rejects it, or the user cancels it while it
// is pending. The checks and the MFA ticket's order are in src/wallet/withdrawal-requests.ts.

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { mfaResponses } from "../../../contract/partner/mfa.js";
import {
  HistoryQuery,
  WithdrawApplyRequest,
  Withdrawal,
  WithdrawCancelRequest,
  WithdrawHistory,
} from "../../../contract/partner/wallet.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import type { ChainWithdrawal } from "../../../store/chain-store.js";
import type { WithdrawalRecord } from "../../../store/exchange-read-models.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection, sendServiceError } from "../errors.js";
import { resolvePage } from "../pagination.js";
import { requireSession } from "../session.js";
import { withdrawalView } from "../views/wallet-view.js";
import { sendMfaRejection } from "./mfa.js";

const tags = ["Wallet"];

export default defineRoutes((app, deps) => {
  app.post(
    "/withdraw/apply",
    {
      schema: {
        summary: "Ask for a withdrawal: amount + fee are frozen until it completes or is released",
        description:
          "`amount` is a JSON number (10 to 1,000,000 USDT, at most 8 decimals); the flat fee of 1 USDT is on top. `address` is 0x and 40 hex digits. With MFA on, `mfaTicket` (from /user/mfa/verify, purpose withdraw) is required and used up only when the withdrawal is accepted or the ticket itself is refused.",
        tags,
        body: WithdrawApplyRequest,
        response: mfaResponses(Withdrawal),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const result = await deps.withdrawalRequests.request(request.user.userId, request.body);
      if (result.ok) {
        const { requested } = result;
        return ok(
          withdrawalView({
            withdrawalId: requested.withdrawalId,
            userId: requested.userId,
            amount: requested.amount,
            fee: requested.fee,
            address: requested.address,
            status: "PENDING",
            requestedAtMs: requested.atMs,
            updatedAtMs: requested.atMs,
          }),
        );
      }
      if ("mfaRejection" in result) return sendMfaRejection(reply, result.mfaRejection, result.nowMs);
      return sendRejection(reply, result.rejection);
    },
  );

  app.post(
    "/withdraw/cancel",
    {
      schema: {
        summary: "Take back a pending withdrawal: amount + fee return to available",
        tags,
        body: WithdrawCancelRequest,
        response: partnerResponses(Withdrawal),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const userId = request.user.userId;
      const withdrawal = await ownWithdrawal(userId, parseId(request.body.withdrawId));
      // Another user's withdrawal is "not found", whatever its status: its existence is not the caller's business.
      if (withdrawal === undefined) return sendRejection(reply, reject("WITHDRAWAL_NOT_FOUND"));
      const result = await deps.engine.submit({
        type: "CancelWithdrawal",
        userId,
        withdrawalId: withdrawal.withdrawalId,
      });
      if (!result.ok) return sendRejection(reply, result.rejection);
      // Projected in the same commit, so the read model already shows it cancelled.
      const cancelled = await deps.exchangeReadModels.withdrawalById(withdrawal.withdrawalId);
      return ok(withdrawalView(cancelled!));
    },
  );

  app.get(
    "/withdraw/history",
    {
      schema: {
        summary: "The session user's withdrawals in every status, newest first",
        description: "`count` and `records` inside `data`.",
        tags,
        querystring: HistoryQuery,
        response: partnerResponses(WithdrawHistory),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const found = await deps.exchangeReadModels.withdrawals({ userId: request.user.userId }, page.value);
      return ok({
        count: found.total,
        records: await Promise.all(
          found.records.map(async (withdrawal) => ({
            ...withdrawalView(withdrawal),
            txHash: paidTxHash(await deps.chainWallet?.store.withdrawal(withdrawal.withdrawalId)),
          })),
        ),
      });
    },
  );

  async function ownWithdrawal(
    userId: number,
    withdrawalId: number | undefined,
  ): Promise<WithdrawalRecord | undefined> {
    if (withdrawalId === undefined) return undefined;
    const withdrawal = await deps.exchangeReadModels.withdrawalById(withdrawalId);
    return withdrawal?.userId === userId ? withdrawal : undefined;
  }
});

/** The transaction that pays a withdrawal, once it is on its way (a signed one not yet sent is not shown). */
function paidTxHash(chain: ChainWithdrawal | undefined): string | null {
  return chain?.status === "SENT" || chain?.status === "COMPLETED" ? chain.txHash : null;
}
