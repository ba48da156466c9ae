// Withdrawals to approve, reject or complete, and deposits to credit and look through.

import { useState } from "preact/hooks";
import { formatAmount, formatTime } from "../shared/format.js";
import { admin } from "./admin-api.js";
import { type Column, ListFilters, type ListPage, listPageSize, PagedTable, usePagedList } from "./lists.js";
import type { Deposit, Withdrawal } from "./types.js";
import { OutcomeNotice, Section, useOutcome } from "./ui.js";

const withdrawalStatuses = ["PENDING", "APPROVED", "COMPLETED", "REJECTED", "CANCELLED", ""];
export const withdrawalsRefreshMs = 5_000;

/** GET /admin/withdrawals answers a count and the page's records. */
function withdrawalsPage(answer: unknown): ListPage<Withdrawal> {
  const { count, records } = answer as { count: number; records: Withdrawal[] };
  return { records, total: count, pages: Math.ceil(count / listPageSize) };
}

export function Withdrawals() {
  const list = usePagedList<Withdrawal, { status: string }>(
    "/admin/withdrawals",
    { status: "PENDING" },
    { pollMs: withdrawalsRefreshMs, toPage: withdrawalsPage },
  );
  const { status } = list.filters;
  const { outcome, busy, run } = useOutcome();
  const act = (withdrawal: Withdrawal, action: "approve" | "reject" | "complete") =>
    run(async () => {
      const after = await admin<Withdrawal>("POST", `/admin/withdrawals/${withdrawal.withdrawId}/${action}`);
      return `Withdrawal ${after.withdrawId} of user ${after.userId} is now ${after.status}.`;
    }, list.reload);
  const columns: Column<Withdrawal>[] = [
    { header: "Id", cellClass: "mono", cell: (withdrawal) => withdrawal.withdrawId },
    { header: "User", cellClass: "mono", cell: (withdrawal) => withdrawal.userId },
    { header: "Amount", numeric: true, cell: (withdrawal) => formatAmount(withdrawal.amount) },
    { header: "Fee", numeric: true, cell: (withdrawal) => formatAmount(withdrawal.fee) },
    { header: "Address", cellClass: "mono small", cell: (withdrawal) => withdrawal.address },
    {
      header: "Status",
      cell: (withdrawal) => <span class={`badge ${withdrawal.status}`}>{withdrawal.status}</span>,
    },
    { header: "Requested", cellClass: "small", cell: (withdrawal) => formatTime(withdrawal.createdAt) },
    {
      header: "Actions",
      cell: (withdrawal) => (
        <div class="row">
          {withdrawal.status === "PENDING" && (
            <button type="button" class="primary" disabled={busy} onClick={() => act(withdrawal, "approve")}>
              Approve
            </button>
          )}
          {withdrawal.status === "APPROVED" && (
            <button type="button" class="primary" disabled={busy} onClick={() => act(withdrawal, "complete")}>
              Mark sent
            </button>
          )}
          {(withdrawal.status === "PENDING" || withdrawal.status === "APPROVED") && (
            <button type="button" disabled={busy} onClick={() => act(withdrawal, "reject")}>
              Reject
            </button>
          )}
        </div>
      ),
    },
  ];
  return (
    <Section title="Withdrawals" id="withdrawals-title">
      <ListFilters
        list={list}
        fields={[{ kind: "status", name: "status", label: "Status", statuses: withdrawalStatuses }]}
      />
      <OutcomeNotice outcome={outcome} />
      <PagedTable
        list={list}
        columns={columns}
        rowKey={(withdrawal) => withdrawal.withdrawId}
        rowAttributes={(withdrawal) => ({ "data-withdrawal-id": withdrawal.withdrawId })}
        testId="withdrawals"
        empty={`No withdrawal ${status === "" ? "yet" : `is ${status}`}.`}
      />
    </Section>
  );
}

const depositColumns: Column<Deposit>[] = [
  { header: "Credited", cellClass: "small", cell: (deposit) => formatTime(deposit.creditedAt) },
  { header: "User", cellClass: "mono", cell: (deposit) => deposit.userId },
  { header: "Amount", numeric: true, cell: (deposit) => formatAmount(deposit.amount) },
  { header: "Transaction", cellClass: "mono small", cell: (deposit) => deposit.txHash },
];

export function Deposits() {
  const list = usePagedList<Deposit, { userId: string }>("/admin/deposits", { userId: "" });
  const { outcome, busy, run } = useOutcome();
  const [userId, setUserId] = useState("");
  const [amount, setAmount] = useState("");
  const [txHash, setTxHash] = useState("");
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const deposit = await admin<Deposit>("POST", "/admin/deposits", {
        userId: userId.trim(),
        amount: amount.trim(),
        txHash: txHash.trim(),
      });
      setAmount("");
      setTxHash("");
      return `Credited ${formatAmount(deposit.amount)} USDT to user ${deposit.userId} (${deposit.txHash}).`;
    }, list.reload);
  };
  return (
    <div class="stack">
      <Section title="Credit a deposit" id="deposit-title">
        <form class="fields" onSubmit={submit}>
          <label>
            User id
            <input
              name="userId"
              required
              inputMode="numeric"
              value={userId}
              onInput={(event) => setUserId(event.currentTarget.value)}
            />
          </label>
          <label>
            Amount (USDT)
            <input
              name="amount"
              required
              inputMode="decimal"
              value={amount}
              onInput={(event) => setAmount(event.currentTarget.value)}
            />
          </label>
          <label style={{ flex: "1 1 280px" }}>
            Transaction hash (idempotency key)
            <input
              name="txHash"
              required
              value={txHash}
              onInput={(event) => setTxHash(event.currentTarget.value)}
            />
          </label>
          <button type="submit" class="primary" disabled={busy}>
            Credit
          </button>
        </form>
        <OutcomeNotice outcome={outcome} />
      </Section>
      <Section title="Deposits" id="deposits-title">
        <ListFilters
          list={list}
          fields={[{ kind: "search", name: "userId", label: "Only user", inputMode: "numeric", trim: true }]}
        />
        <PagedTable list={list} columns={depositColumns} rowKey={(deposit) => deposit.txHash} />
      </Section>
    </div>
  );
}
