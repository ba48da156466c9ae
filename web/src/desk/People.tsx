// Users (find one, see balances and sessions, revoke the sessions) and partners (create one and
// see its keys once; the list never shows a secret).

import { useState } from "preact/hooks";
import { query } from "../shared/api.js";
import { formatAmount, formatTime } from "../shared/format.js";
import { admin, type Paged } from "./admin-api.js";
import type { CreatedPartner, Partner, User } from "./types.js";
import { LoadError, OutcomeNotice, Pager, Section, useLoad, useOutcome } from "./ui.js";

export function Users() {
  const [keyword, setKeyword] = useState("");
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => admin<Paged<User>>("GET", `/admin/users${query({ keyword, page, pageSize: 20 })}`),
    [keyword, page],
  );
  const { outcome, busy, run } = useOutcome();
  const revoke = (user: User) =>
    run(async () => {
      const result = await admin<{ userId: string; revoked: number }>(
        "POST",
        `/admin/users/${user.userId}/revoke-sessions`,
      );
      return `Revoked ${result.revoked} session(s) of user ${result.userId}; their partner signs them in again by registering.`;
    }, list.reload);
  return (
    <Section title="Users" id="users-title">
      <form class="fields" onSubmit={(event) => event.preventDefault()}>
        <label style={{ flex: "1 1 280px" }}>
          Partner's user id, e-mail, name or user id
          <input
            type="search"
            value={keyword}
            onInput={(event) => {
              setKeyword(event.currentTarget.value);
              setPage(1);
            }}
          />
        </label>
      </form>
      <OutcomeNotice outcome={outcome} />
      <LoadError error={list.error} />
      <div class="table-wrap">
        <table data-testid="users">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Partner</th>
              <th scope="col">Partner's id</th>
              <th scope="col">E-mail</th>
              <th class="num" scope="col">
                Available
              </th>
              <th class="num" scope="col">
                Frozen
              </th>
              <th class="num" scope="col">
                Sessions
              </th>
              <th scope="col">Since</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.records ?? []).map((user) => (
              <tr key={user.userId}>
                <td>
                  <span class="mono">{user.userId}</span> <span class="small muted">{user.userName}</span>
                </td>
                <td class="small">
                  {user.partnerName} ({user.merchantId})
                </td>
                <td class="mono small">{user.marchantUserId}</td>
                <td class="small">{user.email || "—"}</td>
                <td class="num">{formatAmount(user.available)}</td>
                <td class="num">{formatAmount(user.frozen)}</td>
                <td class="num">{user.activeSessions}</td>
                <td class="small">{formatTime(user.createdAt)}</td>
                <td>
                  <button
                    type="button"
                    disabled={busy || user.activeSessions === 0}
                    onClick={() => revoke(user)}
                  >
                    Revoke sessions
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.data !== null && (
        <Pager page={page} pages={list.data.pages} total={list.data.total} onPage={setPage} />
      )}
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
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => admin<Paged<Partner>>("GET", `/admin/partners${query({ page, pageSize: 20 })}`),
    [page],
  );
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
        <LoadError error={list.error} />
        <div class="table-wrap">
          <table data-testid="partners">
            <thead>
              <tr>
                <th scope="col">merchantId</th>
                <th scope="col">Name</th>
                <th scope="col">APP Key</th>
                <th class="num" scope="col">
                  Commission
                </th>
                <th scope="col">Webhook</th>
                <th scope="col">Signed nonce</th>
                <th class="num" scope="col">
                  Users
                </th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {(list.data?.records ?? []).map((partner) => (
                <tr key={partner.merchantId}>
                  <td class="mono">{partner.merchantId}</td>
                  <td>{partner.name}</td>
                  <td class="mono small">{partner.appKey}</td>
                  <td class="num">{partner.commissionRate}</td>
                  <td class="small mono">{partner.webhookUrl ?? "—"}</td>
                  <td class="small">
                    {partner.signedNonceRequired ? "required " : "optional "}
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => setSignedNonceRequired(partner, !partner.signedNonceRequired)}
                    >
                      {partner.signedNonceRequired ? "Lift" : "Require"}
                    </button>
                  </td>
                  <td class="num">{partner.userCount}</td>
                  <td class="small">{formatTime(partner.createdAt)}</td>
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
