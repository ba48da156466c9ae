// Categories (create, rename in zh-CN, take offline or online, delete) and the market applications
// partners' users filed on the legacy interface (approve into a draft market, or reject).

import { useState } from "preact/hooks";
import { query } from "../shared/api.js";
import { formatTime } from "../shared/format.js";
import { admin, type Paged } from "./admin-api.js";
import type { Application, Category } from "./types.js";
import { LoadError, OutcomeNotice, Pager, Section, useLoad, useOutcome } from "./ui.js";

export function Categories() {
  const list = useLoad(() => admin<Category[]>("GET", "/admin/categories"), []);
  const { outcome, busy, run } = useOutcome();
  const [name, setName] = useState("");
  const [chineseName, setChineseName] = useState("");
  const [parentId, setParentId] = useState("");
  const categories = list.data ?? [];
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const created = await admin<Category>("POST", "/admin/categories", {
        name: name.trim(),
        ...(parentId === "" ? {} : { parentId }),
        names: {
          "en-US": name.trim(),
          ...(chineseName.trim() === "" ? {} : { "zh-CN": chineseName.trim() }),
        },
      });
      setName("");
      setChineseName("");
      return `Category ${created.id} “${created.name}” created at level ${created.level}.`;
    }, list.reload);
  };
  const toggle = (category: Category) =>
    run(async () => {
      const after = await admin<Category>("PATCH", `/admin/categories/${category.id}`, {
        online: !category.online,
      });
      return `Category “${after.name}” is now ${after.online ? "online" : "offline"}.`;
    }, list.reload);
  const remove = (category: Category) =>
    run(async () => {
      const after = await admin<Category>("DELETE", `/admin/categories/${category.id}`);
      return `Category “${after.name}” deleted.`;
    }, list.reload);
  // Parents before children: the flat list is in id order, so walk the tree from the roots.
  const ordered: Category[] = [];
  const visit = (parent: string | null) => {
    for (const category of categories.filter((each) => each.parentId === parent)) {
      ordered.push(category);
      visit(category.id);
    }
  };
  visit(null);
  return (
    <div class="stack">
      <Section title="New category" id="new-category-title">
        <form class="fields" onSubmit={submit}>
          <label>
            Name (en-US)
            <input
              name="name"
              required
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          </label>
          <label>
            Name (zh-CN, optional)
            <input
              name="zhName"
              value={chineseName}
              onInput={(event) => setChineseName(event.currentTarget.value)}
            />
          </label>
          <label>
            Parent
            <select
              name="parentId"
              value={parentId}
              onChange={(event) => setParentId(event.currentTarget.value)}
            >
              <option value="">none (top level)</option>
              {ordered
                .filter((category) => category.level < 3)
                .map((category) => (
                  <option key={category.id} value={category.id}>
                    {"— ".repeat(category.level - 1)}
                    {category.name}
                  </option>
                ))}
            </select>
          </label>
          <button type="submit" class="primary" disabled={busy}>
            Create category
          </button>
        </form>
        <OutcomeNotice outcome={outcome} />
      </Section>
      <Section title="Categories" id="categories-title">
        <LoadError error={list.error} />
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Name</th>
                <th scope="col">Other names</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {ordered.map((category) => (
                <tr key={category.id}>
                  <td class="mono">{category.id}</td>
                  <td style={{ paddingLeft: `${0.55 + (category.level - 1) * 1.25}rem` }}>{category.name}</td>
                  <td class="small">
                    {Object.entries(category.names)
                      .filter(([language]) => language !== "en-US")
                      .map(([language, value]) => `${language}: ${value}`)
                      .join(" · ") || "—"}
                  </td>
                  <td>
                    <span class={`badge ${category.online ? "open" : "offline"}`}>
                      {category.online ? "online" : "offline"}
                    </span>
                  </td>
                  <td>
                    <div class="row">
                      <button type="button" disabled={busy} onClick={() => toggle(category)}>
                        {category.online ? "Take offline" : "Put online"}
                      </button>
                      <button type="button" disabled={busy} onClick={() => remove(category)}>
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
    </div>
  );
}

export function Applications() {
  const [status, setStatus] = useState("PENDING");
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => admin<Paged<Application>>("GET", `/admin/applications${query({ status, page, pageSize: 20 })}`),
    [status, page],
  );
  const { outcome, busy, run } = useOutcome();
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const approve = (application: Application) =>
    run(async () => {
      const after = await admin<Application>(
        "POST",
        `/admin/applications/${application.applicationId}/approve`,
      );
      return `Application ${after.applicationId} approved: draft market ${after.marketId} (open it under Markets).`;
    }, list.reload);
  const rejectIt = (application: Application) =>
    run(async () => {
      const reason = reasons[application.applicationId]?.trim();
      const after = await admin<Application>(
        "POST",
        `/admin/applications/${application.applicationId}/reject`,
        reason === undefined || reason === "" ? {} : { reason },
      );
      return `Application ${after.applicationId} rejected.`;
    }, list.reload);
  return (
    <Section title="Market applications" id="applications-title">
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
            {["PENDING", "APPROVED", "REJECTED", ""].map((each) => (
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
        <p class="muted">No application {status === "" ? "yet" : `is ${status}`}.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Applicant</th>
                <th scope="col">Title</th>
                <th scope="col">Options</th>
                <th scope="col">Status</th>
                <th scope="col">Filed</th>
                <th scope="col">Review</th>
              </tr>
            </thead>
            <tbody>
              {(list.data?.records ?? []).map((application) => (
                <tr key={application.applicationId}>
                  <td class="mono">{application.applicationId}</td>
                  <td class="mono">{application.userId}</td>
                  <td>
                    {application.title}
                    <div class="small muted">{application.description}</div>
                  </td>
                  <td class="small">
                    {application.modelType}:{" "}
                    {application.outcomeOptionsVoList.map((option) => option.optionTitle).join(" / ")}
                  </td>
                  <td>
                    <span class={`badge ${application.status}`}>{application.status}</span>
                    {application.marketId !== null && <div class="small">market {application.marketId}</div>}
                    {application.rejectReason !== null && (
                      <div class="small muted">{application.rejectReason}</div>
                    )}
                  </td>
                  <td class="small">{formatTime(application.createTime)}</td>
                  <td>
                    {application.status === "PENDING" && (
                      <div class="row">
                        <button
                          type="button"
                          class="primary"
                          disabled={busy}
                          onClick={() => approve(application)}
                        >
                          Approve
                        </button>
                        <label>
                          Reason
                          <input
                            value={reasons[application.applicationId] ?? ""}
                            onInput={(event) =>
                              setReasons({
                                ...reasons,
                                [application.applicationId]: event.currentTarget.value,
                              })
                            }
                          />
                        </label>
                        <button type="button" disabled={busy} onClick={() => rejectIt(application)}>
                          Reject
                        </button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data !== null && (
        <Pager page={page} pages={list.data.pages} total={list.data.total} onPage={setPage} />
      )}
    </Section>
  );
}
