// Users (find one, see balances and sessions, revoke the sessions) and partners (create one and
// see its keys once; the list never shows a secret).

import { useState } from "preact/hooks";
import { formatAmount, formatTime } from "../shared/format.js";
import { admin } from "./admin-api.js";
import { type Column, type Filters, ListFilters, PagedTable, usePagedList } from "./lists.js";
import type { CreatedPartner, Partner, User } from "./types.js";
import { OutcomeNotice, Section, useOutcome } from "./ui.js";

export function Users() {
  const list = usePagedList<User, { keyword: string }>("/admin/users", { keyword: "" });
  const { outcome, busy, run } = useOutcome();
  const revoke = (user: User) =>
    run(async () => {
      const result = await admin<{ userId: string; revoked: number }>(
        "POST",
        `/admin/users/${user.userId}/revoke-sessions`,
      );
      return `Revoked ${result.revoked} session(s) of user ${result.userId}; their partner signs them in again by registering.`;
    }, list.reload);
  const columns: Column<User>[] = [
    {
      header: "User",
      cell: (user) => (
        <>
          <span class="mono">{user.userId}</span> <span class="small muted">{user.userName}</span>
        </>
      ),
    },
    { header: "Partner", cellClass: "small", cell: (user) => `${user.partnerName} (${user.merchantId})` },
    { header: "Partner's id", cellClass: "mono small", cell: (user) => user.marchantUserId },
    { header: "E-mail", cellClass: "small", cell: (user) => user.email || "—" },
    { header: "Available", numeric: true, cell: (user) => formatAmount(user.available) },
    { header: "Frozen", numeric: true, cell: (user) => formatAmount(user.frozen) },
    { header: "Sessions", numeric: true, cell: (user) => user.activeSessions },
    { header: "Since", cellClass: "small", cell: (user) => formatTime(user.createdAt) },
    {
      header: "Actions",
      cell: (user) => (
        <button type="button" disabled={busy || user.activeSessions === 0} onClick={() => revoke(user)}>
          Revoke sessions
        </button>
      ),
    },
  ];
  return (
    <Section title="Users" id="users-title">
      <ListFilters
        list={list}
        fields={[
          {
            kind: "search",
            name: "keyword",
            label: "Partner's user id, e-mail, name or user id",
            wide: true,
          },
        ]}
      />
      <OutcomeNotice outcome={outcome} />
      <PagedTable list={list} columns={columns} rowKey={(user) => user.userId} testId="users" />
    </Section>
  );
}

function Secrets({ partner, onDismiss }: { partner: CreatedPartner; onDismiss: () => void }) {
  const rows: [string, string][] = [
    ["merchantId", partner.merchantId],
    ["APP Key", partner.appKey],
    ["APP Secret", partner.appSecret],
    ["API key", partner.apiKey],
    ["Webhook secret", partner.webhookSecret],
  ];
  return (
    <section class="secret stack" aria-labelledby="secrets-title" data-testid="partner-secrets">
      <h3 id="secrets-title">Keys of partner {partner.merchantId}: shown this once</h3>
      <p class="small">
        Give them to the partner over a safe channel now. The platform keeps only a hash or a sealed copy and
        will not show them again.
      </p>
      <dl style={{ margin: 0 }}>
        {rows.map(([name, value]) => (
          <div key={name} class="row">
            <dt style={{ minWidth: "8rem", fontWeight: 600 }}>{name}</dt>
            <dd class="mono" style={{ margin: 0 }}>
              {value}
            </dd>
          </div>
        ))}
      </dl>
      <div class="row">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard?.writeText(rows.map(([name, value]) => `${name}: ${value}`).join("\n"))
          }
        >
          Copy all
        </button>
        <button type="button" class="primary" onClick={onDismiss}>
          I have saved them
        </button>
      </div>
    </section>
  );
}

export function Partners() {
  const list = usePagedList<Partner, Filters>("/admin/partners", {});
  const { outcome, busy, run } = useOutcome();
  const [created, setCreated] = useState<CreatedPartner | null>(null);
  const [name, setName] = useState("");
  const [commissionRate, setCommissionRate] = useState("");
  const [webhookUrl, setWebhookUrl] = useState("");
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const partner = await admin<CreatedPartner>("POST", "/admin/partners", {
        ...(name.trim() === "" ? {} : { name: name.trim() }),
        ...(commissionRate.trim() === "" ? {} : { commissionRate: commissionRate.trim() }),
        ...(webhookUrl.trim() === "" ? {} : { webhookUrl: webhookUrl.trim() }),
      });
      setCreated(partner);
      setName("");
      setCommissionRate("");
      setWebhookUrl("");
      return `Partner ${partner.merchantId} created.`;
    }, list.reload);
  };
  // Replay protection: the partner's mutating requests must then sign a fresh x-ca-nonce.
  const setSignedNonceRequired = (partner: Partner, required: boolean) =>
    void run(async () => {
      await admin<Partner>("POST", `/admin/partners/${encodeURIComponent(partner.merchantId)}`, {
        signedNonceRequired: required,
      });
      return required
        ? `Partner ${partner.merchantId} must now sign a nonce on every request that is not a read.`
        : `Partner ${partner.merchantId} no longer has to sign nonces.`;
    }, list.reload);
  const partnerColumns: Column<Partner>[] = [
    { header: "merchantId", cellClass: "mono", cell: (partner) => partner.merchantId },
    { header: "Name", cell: (partner) => partner.name },
    { header: "APP Key", cellClass: "mono small", cell: (partner) => partner.appKey },
    { header: "Commission", numeric: true, cell: (partner) => partner.commissionRate },
    { header: "Webhook", cellClass: "small mono", cell: (partner) => partner.webhookUrl ?? "—" },
    {
      header: "Signed nonce",
      cellClass: "small",
      cell: (partner) => (
        <>
          {partner.signedNonceRequired ? "required " : "optional "}
          <button
            type="button"
            disabled={busy}
            onClick={() => setSignedNonceRequired(partner, !partner.signedNonceRequired)}
          >
            {partner.signedNonceRequired ? "Lift" : "Require"}
          </button>
        </>
      ),
    },
    { header: "Users", numeric: true, cell: (partner) => partner.userCount },
    { header: "Since", cellClass: "small", cell: (partner) => formatTime(partner.createdAt) },
  ];
  return (
    <div class="stack">
      <Section title="New partner" id="new-partner-title">
        <form class="fields" onSubmit={submit}>
          <label>
            Name
            <input name="name" value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <label>
            Commission rate (0 to 1)
            <input
              name="commissionRate"
              inputMode="decimal"
              value={commissionRate}
              onInput={(event) => setCommissionRate(event.currentTarget.value)}
            />
          </label>
          <label style={{ flex: "1 1 280px" }}>
            Webhook URL
            <input
              name="webhookUrl"
              type="url"
              value={webhookUrl}
              onInput={(event) => setWebhookUrl(event.currentTarget.value)}
            />
          </label>
          <button type="submit" class="primary" disabled={busy}>
            Create partner
          </button>
        </form>
        <OutcomeNotice outcome={outcome} />
        {created !== null && <Secrets partner={created} onDismiss={() => setCreated(null)} />}
      </Section>
      <Section title="Partners" id="partners-title">
        <PagedTable
          list={list}
          columns={partnerColumns}
          rowKey={(partner) => partner.merchantId}
          testId="partners"
        />
      </Section>
    </div>
  );
}
