// POST /admin/deposits (DESIGN §4, §5): the operator's chain watcher credits a deposit. Idempotent on
// txHash: the same deposit sent again is answered 200 with the deposit as first credited and credits
// nothing; the same txHash with another user or amount is refused (400/1001), since it cannot be
// the same transaction. The watcher may name the user by `userId` or by the deposit `address` it
// saw the transfer arrive at (one the platform issued through GET /deposit/address).

import { type Static, Type } from "typebox";
import { FlexibleId } from "../../../contract/admin.js";
import { NonEmptyString, ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { isoSeconds, parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { txHashLengthMax } from "../../../core/limits.js";
import { formatAtoms, parseAtoms } from "../../../core/money.js";
import type { DepositRecord } from "../../../store/exchange-read-models.js";
import { sendRejection } from "../../partner/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const DepositRequest = Type.Object({
  userId: Type.Optional(FlexibleId),
  address: Type.Optional(
    Type.String({
      maxLength: 64,
      description: "Instead of userId: the user's deposit address (0x + 40 hex)",
    }),
  ),
  amount: Type.Union([Type.Number(), Type.String({ maxLength: 32 })], {
    description: "USDT, as a JSON number or a decimal string (at most 8 decimals)",
  }),
  txHash: NonEmptyString({ maxLength: txHashLengthMax }),
});
type DepositRequest = Static<typeof DepositRequest>;

const Deposit = Type.Object({
  userId: Type.String(),
  amount: Type.String({ description: "Decimal string" }),
  txHash: Type.String(),
  creditedAt: Type.String({ description: "ISO 8601 UTC" }),
});

function depositView(deposit: DepositRecord) {
  return {
    userId: String(deposit.userId),
    amount: formatAtoms(deposit.amount),
    txHash: deposit.txHash,
    creditedAt: isoSeconds(deposit.creditedAtMs),
  };
}

export default defineRoutes((app, deps) => {
  app.post(
    "/admin/deposits",
    {
      schema: {
        summary: "Credit a deposit (idempotent on txHash)",
        tags: ["Wallet"],
        body: DepositRequest,
        response: partnerResponses(Deposit),
      },
    },
    async (request, reply) => {
      const body: DepositRequest = request.body;
      if ((body.userId === undefined) === (body.address === undefined)) {
        return sendRejection(reply, reject("INVALID_INPUT", "exactly one of userId and address is required"));
      }
      const userId =
        body.address === undefined
          ? parseId(body.userId!)
          : await deps.depositAddresses.userIdOf(body.address);
      if (userId === undefined && body.address !== undefined) {
        return sendRejection(reply, reject("USER_NOT_FOUND", "Deposit address not found"));
      }
      const user = userId === undefined ? undefined : await deps.identity.findUser(userId);
      if (user === undefined) return sendRejection(reply, reject("USER_NOT_FOUND"));
      const amount = parseAtoms(body.amount);
      if (!amount.ok) {
        return sendRejection(
          reply,
          amount.reason === "precision"
            ? reject("PRECISION_EXCEEDED", "amount has more than 8 decimal places")
            : reject("INVALID_INPUT", "amount must be a decimal number"),
        );
      }
      if (amount.atoms <= 0n) return sendRejection(reply, reject("INVALID_INPUT", "amount must be positive"));
      const txHash = body.txHash.trim();
      const result = await deps.engine.submit({
        type: "Deposit",
        userId: user.userId,
        amount: amount.atoms,
        txHash,
      });
      if (result.ok) {
        const credited = result.events[0];
        if (credited?.type !== "DepositCredited") throw new Error("Deposit must emit DepositCredited");
        return ok(
          depositView({
            txHash,
            userId: credited.userId,
            amount: credited.amount,
            creditedAtMs: credited.atMs,
          }),
        );
      }
      if (result.rejection.code === "DEPOSIT_DUPLICATE") {
        const first = await deps.exchangeReadModels.depositByTxHash(txHash);
        if (first !== undefined && first.userId === user.userId && first.amount === amount.atoms) {
          return ok(depositView(first));
        }
        return sendRejection(
          reply,
          reject("DEPOSIT_DUPLICATE", "txHash was already credited with another user or amount"),
        );
      }
      return sendRejection(reply, result.rejection);
    },
  );
});
