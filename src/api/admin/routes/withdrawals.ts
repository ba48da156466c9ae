// GET /admin/withdrawals and POST /admin/withdrawals/{id}/approve · /reject · /complete (DESIGN §5):
// the operator's side of the withdrawal workflow. The list (newest first, `count` and `records` in
// `data` like the user's history) is how the operator finds what waits for review (status=PENDING). approve: PENDING → APPROVED (still frozen); reject: PENDING or APPROVED →
// REJECTED (amount + fee back to available); complete: APPROVED → COMPLETED (the amount leaves,
// the fee is platform income). Each answers the withdrawal as it now is, with its owner.
// With a chain configured, `chain` shows the on-chain payment (src/chain/withdrawal-sender.ts): the
// hot wallet pays approved withdrawals itself; reject and complete by hand are refused while its
// transaction is in flight; complete takes `txHash` when the operator paid from elsewhere.

import { type Static, Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { Withdrawal } from "../../../contract/partner/wallet.js";
import { isoSeconds, parseId } from "../../../contract/wire-format.js";
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

const ChainSend = Type.Object(
  {
    status: Type.String({
      description:
        "WAITING (the hot wallet is short of tokens or gas), SIGNED, SENT, COMPLETED, FAILED, DROPPED, or HELD (taken over by the operator)",
    }),
    txHash: Type.Union([Type.String(), Type.Null()]),
    nonce: Type.Union([Type.Integer(), Type.Null()]),
    broadcasts: Type.Integer({ description: "Times the signed transaction was handed to the node" }),
    error: Type.Union([Type.String(), Type.Null()], { description: "Why it failed, was dropped or waits" }),
    transactions: Type.Array(
      Type.Object({
        txHash: Type.String(),
        nonce: Type.Integer(),
        state: Type.String({
          description:
            "PENDING (may still be mined), MINED (the one its nonce went to) or DEAD (never will be)",
        }),
        maxFeePerGas: Type.String({ description: "Wei" }),
        maxPriorityFeePerGas: Type.String({ description: "Wei" }),
        signedAt: Type.String({ description: "ISO 8601 UTC" }),
      }),
      {
        description:
          "Every transaction signed for it, oldest first: the first and each replacement at its nonce with higher fees",
      },
    ),
  },
  { description: "The on-chain payment, when a chain is configured and it has one" },
);
export const AdminWithdrawal = Type.Object({
  ...Withdrawal.properties,
  userId: Type.String(),
  chain: Type.Union([ChainSend, Type.Null()]),
});
/** complete's optional body `{txHash}`: the transaction that paid it, when sent from outside predex. */
const txHashPattern = /^0x[0-9a-fA-F]{64}$/;
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
      return ok({
        count: found.total,
        records: await Promise.all(found.records.map((withdrawal) => adminWithdrawalView(deps, withdrawal))),
      });
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
          ...(action === "complete"
            ? {
                description:
                  "Body (optional): `{txHash}`, the 0x transaction hash that paid it when the operator sent it from a wallet outside predex.",
              }
            : {}),
          response: partnerResponses(AdminWithdrawal),
        },
      },
      async (request, reply) => {
        const params: WithdrawalParams = request.params;
        const withdrawalId = parseId(params.id);
        if (withdrawalId === undefined) return sendRejection(reply, reject("WITHDRAWAL_NOT_FOUND"));
        const txHash = (request.body as { txHash?: unknown } | undefined | null)?.txHash;
        if (txHash !== undefined && (typeof txHash !== "string" || !txHashPattern.test(txHash))) {
          return sendServiceError(reply, badRequest("txHash must be 0x followed by 64 hex digits"));
        }
        const chain = deps.chainWallet?.store;
        const existing = await deps.exchangeReadModels.withdrawalById(withdrawalId);
        // Rejecting or completing by hand takes the withdrawal from the hot wallet first, atomically:
        // refused while a payment is in flight, so the user is never both refunded and paid.
        if (typeof txHash === "string" && deps.chainWallet !== undefined && existing?.status === "APPROVED") {
          const { paymentProblem } = await import("../../../chain/payment-check.js");
          const problem = await paymentProblem(deps.chainWallet, txHash, existing.address, existing.amount);
          if (problem !== undefined) return sendServiceError(reply, badRequest(problem));
        }
        const handOperated = chain !== undefined && existing !== undefined && action !== "approve";
        if (handOperated) {
          const inFlight = await chain.hold(withdrawalId, existing.address.toLowerCase(), deps.nowMs());
          if (inFlight !== undefined) {
            return sendRejection(
              reply,
              reject(
                "INVALID_INPUT",
                `the hot wallet's transaction ${inFlight.txHash ?? ""} is ${inFlight.status}; wait for it to complete, fail or be dropped`,
              ),
            );
          }
        }
        const result = await deps.engine.submit({ type: command, withdrawalId } satisfies ExchangeCommand);
        if (!result.ok) {
          if (handOperated) await chain.release(withdrawalId);
          return sendRejection(reply, result.rejection);
        }
        if (handOperated && action === "complete") {
          await chain.setWithdrawal(withdrawalId, {
            status: "COMPLETED",
            nowMs: deps.nowMs(),
            ...(typeof txHash === "string" ? { txHash: txHash.toLowerCase() } : {}),
          });
        }
        return ok(await adminView(deps, withdrawalId));
      },
    );
  }
});

async function adminView(deps: PlatformDeps, withdrawalId: number) {
  // Projected in the same commit as the command, so the read model already shows the new status.
  const withdrawal = await deps.exchangeReadModels.withdrawalById(withdrawalId);
  if (withdrawal === undefined) throw new Error(`withdrawal ${withdrawalId} is missing from the read model`);
  return adminWithdrawalView(deps, withdrawal);
}

/** Every transaction signed for a withdrawal, with the fees read from its signed bytes. */
async function transactionsView(chain: NonNullable<PlatformDeps["chainWallet"]>, withdrawalId: number) {
  const transactions = await chain.store.withdrawalTransactions(withdrawalId);
  if (transactions.length === 0) return [];
  // The chain wallet has loaded viem already; a platform without a chain never comes here.
  const { feesOf } = await import("../../../chain/fee-bump.js");
  return transactions.map((transaction) => {
    const fees = feesOf(transaction.rawTx);
    return {
      txHash: transaction.txHash,
      nonce: transaction.nonce,
      state: transaction.state,
      maxFeePerGas: String(fees.maxFeePerGas),
      maxPriorityFeePerGas: String(fees.maxPriorityFeePerGas),
      signedAt: isoSeconds(transaction.signedAtMs),
    };
  });
}

export async function adminWithdrawalView(deps: PlatformDeps, withdrawal: WithdrawalRecord) {
  const chain = deps.chainWallet;
  const sent = await chain?.store.withdrawal(withdrawal.withdrawalId);
  const waiting = chain?.sender?.waiting().get(withdrawal.withdrawalId);
  const chainView =
    sent !== undefined
      ? {
          status: sent.status,
          txHash: sent.txHash,
          nonce: sent.nonce,
          broadcasts: sent.broadcasts,
          error: sent.lastError,
          transactions: await transactionsView(chain!, withdrawal.withdrawalId),
        }
      : waiting !== undefined && withdrawal.status === "APPROVED"
        ? { status: "WAITING", txHash: null, nonce: null, broadcasts: 0, error: waiting, transactions: [] }
        : null;
  return {
    ...withdrawalView(withdrawal),
    txHash: sent?.status === "SENT" || sent?.status === "COMPLETED" ? sent.txHash : null,
    userId: String(withdrawal.userId),
    chain: chainView,
  };
}
