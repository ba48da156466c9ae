// Withdrawals in the core ledger: frozen from request to completion, back to the user when
// cancelled or rejected, out of the platform (fee to income) when completed.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { balanceOf, heldWithdrawalById } from "../../src/core/exchange.js";
import { atoms, bookKinds, Exchange } from "./exchange-harness.js";

const alice = 1;
const bob = 2;
const address = "0x00000000000000000000000000000000000000aa";

for (const kind of bookKinds) {
  describe(`withdrawals (${kind} book)`, () => {
    function given() {
      const exchange = new Exchange(kind);
      exchange.deposit(alice, "100");
      exchange.deposit(bob, "100");
      return exchange;
    }
    const request = (amount: string, fee = "1") =>
      ({
        type: "RequestWithdrawal",
        userId: alice,
        amount: atoms(amount),
        fee: atoms(fee),
        address,
      }) as const;

    it("freezes amount and fee at once, so they cannot be traded away", () => {
      const exchange = given();
      const [requested] = exchange.accept(request("60"));
      assert.ok(requested?.type === "WithdrawalRequested");
      assert.deepEqual(balanceOf(exchange.state, alice), {
        available: atoms("39"),
        frozen: atoms("61"),
        total: atoms("100"),
      });
      assert.equal(heldWithdrawalById(exchange.state, requested.withdrawalId)?.status, "PENDING");
      const market = exchange.openMarket();
      exchange.refuse(exchange.limit(alice, market, market.yes, "BUY", "0.5", "80"), "INSUFFICIENT_BALANCE");
    });

    it("refuses more than the available balance, fee included, with nothing changed", () => {
      const exchange = given();
      exchange.refuse(request("99.5"), "INSUFFICIENT_BALANCE");
      exchange.refuse(request("0"), "INVALID_INPUT");
      exchange.refuse({ ...request("1"), address: "" }, "INVALID_INPUT");
    });

    it("two withdrawals that together exceed the balance: only what fits passes", () => {
      const exchange = given();
      exchange.accept(request("60", "0"));
      exchange.refuse(request("60", "0"), "INSUFFICIENT_BALANCE");
      exchange.accept(request("40", "0"));
      assert.equal(balanceOf(exchange.state, alice).available, 0n);
    });

    it("the user may cancel while pending and gets everything back", () => {
      const exchange = given();
      const [requested] = exchange.accept(request("10"));
      assert.ok(requested?.type === "WithdrawalRequested");
      const { withdrawalId } = requested;
      exchange.refuse({ type: "CancelWithdrawal", userId: bob, withdrawalId }, "WITHDRAWAL_NOT_FOUND");
      const [released] = exchange.accept({ type: "CancelWithdrawal", userId: alice, withdrawalId });
      assert.ok(released?.type === "WithdrawalReleased");
      assert.equal(released.reason, "CANCELLED");
      assert.deepEqual(balanceOf(exchange.state, alice), {
        available: atoms("100"),
        frozen: 0n,
        total: atoms("100"),
      });
      exchange.refuse({ type: "CancelWithdrawal", userId: alice, withdrawalId }, "WITHDRAWAL_NOT_PENDING");
      exchange.refuse({ type: "CancelWithdrawal", userId: alice, withdrawalId: 99 }, "WITHDRAWAL_NOT_FOUND");
    });

    it("approved, it can no longer be cancelled; completed, the amount leaves and the fee is income", () => {
      const exchange = given();
      const [requested] = exchange.accept(request("10", "0.5"));
      assert.ok(requested?.type === "WithdrawalRequested");
      const { withdrawalId } = requested;
      exchange.refuse({ type: "CompleteWithdrawal", withdrawalId }, "WITHDRAWAL_NOT_APPROVED");
      exchange.accept({ type: "ApproveWithdrawal", withdrawalId });
      exchange.refuse({ type: "ApproveWithdrawal", withdrawalId }, "WITHDRAWAL_NOT_PENDING");
      exchange.refuse({ type: "CancelWithdrawal", userId: alice, withdrawalId }, "WITHDRAWAL_NOT_PENDING");
      exchange.accept({ type: "CompleteWithdrawal", withdrawalId });
      assert.deepEqual(balanceOf(exchange.state, alice), {
        available: atoms("89.5"),
        frozen: 0n,
        total: atoms("89.5"),
      });
      assert.equal(exchange.state.totals.withdrawn, atoms("10"));
      assert.equal(exchange.state.totals.withdrawalFeeIncome, atoms("0.5"));
      assert.equal(heldWithdrawalById(exchange.state, withdrawalId), null);
      exchange.refuse({ type: "CompleteWithdrawal", withdrawalId }, "WITHDRAWAL_NOT_APPROVED");
      exchange.refuse({ type: "RejectWithdrawal", withdrawalId }, "WITHDRAWAL_NOT_PENDING");
    });

    it("the operator may reject a pending or an approved withdrawal; the funds come back", () => {
      const exchange = given();
      const ids = [request("10"), request("20")].map((command) => {
        const [requested] = exchange.accept(command);
        assert.ok(requested?.type === "WithdrawalRequested");
        return requested.withdrawalId;
      });
      exchange.accept({ type: "ApproveWithdrawal", withdrawalId: ids[1]! });
      for (const withdrawalId of ids) {
        const [released] = exchange.accept({ type: "RejectWithdrawal", withdrawalId });
        assert.ok(released?.type === "WithdrawalReleased" && released.reason === "REJECTED");
      }
      assert.deepEqual(balanceOf(exchange.state, alice), {
        available: atoms("100"),
        frozen: 0n,
        total: atoms("100"),
      });
    });
  });
}
