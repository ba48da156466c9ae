// Withdrawals to approve, reject or complete, and deposits to credit and look through.

import { useState } from "preact/hooks";
import { query } from "../shared/api.js";
import { formatAmount, formatTime } from "../shared/format.js";
import { admin, type Paged } from "./admin-api.js";
import type { Deposit, Withdrawal } from "./types.js";
import { LoadError, OutcomeNotice, Pager, Section, useLoad, useOutcome } from "./ui.js";

const withdrawalStatuses = ["PENDING", "APPROVED", "COMPLETED", "REJECTED", "CANCELLED", ""];
export const withdrawalsRefreshMs = 5_000;

export function Withdrawals() {
  const [status, setStatus] = useState("PENDING");
  const [page, setPage] = useState(1);
  const list = useLoad(
    () =>
      admin<{ count: number; records: Withdrawal[] }>(
        "GET",
        `/admin/withdrawals${query({ status, page, pageSize: 20 })}`,
      ),
    [status, page],
    withdrawalsRefreshMs,
  );
  const { outcome, busy, run } = useOutcome();
  const act = (withdrawal: Withdrawal, action: "approve" | "reject" | "complete") =>
    run(async () => {
      const after = await admin<Withdrawal>("POST", `/admin/withdrawals/${withdrawal.withdrawId}/${action}`);
      return `Withdrawal ${after.withdrawId} of user ${after.userId} is now ${after.status}.`;
    }, list.reload);
  return (
    <Section title="Withdrawals" id="withdrawals-title">
      <form class="fields" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status
          <select
            value={status}
            onChange={(event) => {
              setStatus(event.currentTarget.value);
              setPage(1);
            }}
          >
            {withdrawalStatuses.map((each) => (
              <option key={each} value={each}>
                {each === "" ? "any" : each}
              </option>
            ))}
          </select>
        </label>
      </form>
      <OutcomeNotice outcome={outcome} />
      <LoadError error={list.error} />
      {list.data !== null && list.data.records.length === 0 ? (
        <p class="muted">No withdrawal {status === "" ? "yet" : `is ${status}`}.</p>
      ) : (
        <div class="table-wrap">
          <table data-testid="withdrawals">
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">User</th>
                <th class="num" scope="col">
                  Amount
                </th>
                <th class="num" scope="col">
                  Fee
                </th>
                <th scope="col">Address</th>
                <th scope="col">Status</th>
                <th scope="col">Requested</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {(list.data?.records ?? []).map((withdrawal) => (
                <tr key={withdrawal.withdrawId} data-withdrawal-id={withdrawal.withdrawId}>
                  <td class="mono">{withdrawal.withdrawId}</td>
                  <td class="mono">{withdrawal.userId}</td>
                  <td class="num">{formatAmount(withdrawal.amount)}</td>
                  <td class="num">{formatAmount(withdrawal.fee)}</td>
                  <td class="mono small">{withdrawal.address}</td>
                  <td>
                    <span class={`badge ${withdrawal.status}`}>{withdrawal.status}</span>
                  </td>
                  <td class="small">{formatTime(withdrawal.createdAt)}</td>
                  <td>
                    <div class="row">
                      {withdrawal.status === "PENDING" && (
                        <button
                          type="button"
                          class="primary"
                          disabled={busy}
                          onClick={() => act(withdrawal, "approve")}
                        >
                          Approve
                        </button>
                      )}
                      {withdrawal.status === "APPROVED" && (
                        <button
                          type="button"
                          class="primary"
                          disabled={busy}
                          onClick={() => act(withdrawal, "complete")}
                        >
                          Mark sent
                        </button>
                      )}
                      {(withdrawal.status === "PENDING" || withdrawal.status === "APPROVED") && (
                        <button type="button" disabled={busy} onClick={() => act(withdrawal, "reject")}>
                          Reject
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data !== null && (
        <Pager page={page} pages={Math.ceil(list.data.count / 20)} total={list.data.count} onPage={setPage} />
      )}
    </Section>
  );
}

export function Deposits() {
  const [page, setPage] = useState(1);
  const [userFilter, setUserFilter] = useState("");
  const list = useLoad(
    () => admin<Paged<Deposit>>("GET", `/admin/deposits${query({ userId: userFilter, page, pageSize: 20 })}`),
    [userFilter, page],
  );
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
        <form class="fields" onSubmit={(event) => event.preventDefault()}>
          <label>
            Only user
            <input
              type="search"
              inputMode="numeric"
              value={userFilter}
              onInput={(event) => {
                setUserFilter(event.currentTarget.value.trim());
                setPage(1);
              }}
            />
          </label>
        </form>
        <LoadError error={list.error} />
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Credited</th>
                <th scope="col">User</th>
                <th class="num" scope="col">
                  Amount
                </th>
                <th scope="col">Transaction</th>
              </tr>
            </thead>
            <tbody>
              {(list.data?.records ?? []).map((deposit) => (
                <tr key={deposit.txHash}>
                  <td class="small">{formatTime(deposit.creditedAt)}</td>
                  <td class="mono">{deposit.userId}</td>
                  <td class="num">{formatAmount(deposit.amount)}</td>
                  <td class="mono small">{deposit.txHash}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {list.data !== null && (
          <Pager page={page} pages={list.data.pages} total={list.data.total} onPage={setPage} />
        )}
      </Section>
    </div>
  );
}
