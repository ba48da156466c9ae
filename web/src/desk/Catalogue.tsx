// Categories (create, rename in zh-CN, take offline or online, delete) and the market applications
// partners' users filed on the legacy interface (approve into a draft market, or reject).

import { useState } from "preact/hooks";
import { formatTime } from "../shared/format.js";
import { admin } from "./admin-api.js";
import { type Column, DataTable, ListFilters, PagedTable, usePagedList } from "./lists.js";
import type { Application, Category } from "./types.js";
import { LoadError, OutcomeNotice, Section, useLoad, useOutcome } from "./ui.js";

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
  const categoryColumns: Column<Category>[] = [
    { header: "Id", cellClass: "mono", cell: (category) => category.id },
    {
      header: "Name",
      cellStyle: (category) => ({ paddingLeft: `${0.55 + (category.level - 1) * 1.25}rem` }),
      cell: (category) => category.name,
    },
    {
      header: "Other names",
      cellClass: "small",
      cell: (category) =>
        Object.entries(category.names)
          .filter(([language]) => language !== "en-US")
          .map(([language, value]) => `${language}: ${value}`)
          .join(" · ") || "—",
    },
    {
      header: "State",
      cell: (category) => (
        <span class={`badge ${category.online ? "open" : "offline"}`}>
          {category.online ? "online" : "offline"}
        </span>
      ),
    },
    {
      header: "Actions",
      cell: (category) => (
        <div class="row">
          <button type="button" disabled={busy} onClick={() => toggle(category)}>
            {category.online ? "Take offline" : "Put online"}
          </button>
          <button type="button" disabled={busy} onClick={() => remove(category)}>
            Delete
          </button>
        </div>
      ),
    },
  ];
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
        <DataTable columns={categoryColumns} rows={ordered} rowKey={(category) => category.id} />
      </Section>
    </div>
  );
}

const applicationStatuses = ["PENDING", "APPROVED", "REJECTED", ""];

export function Applications() {
  const list = usePagedList<Application, { status: string }>("/admin/applications", { status: "PENDING" });
  const { status } = list.filters;
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
  const columns: Column<Application>[] = [
    { header: "Id", cellClass: "mono", cell: (application) => application.applicationId },
    { header: "Applicant", cellClass: "mono", cell: (application) => application.userId },
    {
      header: "Title",
      cell: (application) => (
        <>
          {application.title}
          <div class="small muted">{application.description}</div>
        </>
      ),
    },
    {
      header: "Options",
      cellClass: "small",
      cell: (application) => (
        <>
          {application.modelType}:{" "}
          {application.outcomeOptionsVoList.map((option) => option.optionTitle).join(" / ")}
        </>
      ),
    },
    {
      header: "Status",
      cell: (application) => (
        <>
          <span class={`badge ${application.status}`}>{application.status}</span>
          {application.marketId !== null && <div class="small">market {application.marketId}</div>}
          {application.rejectReason !== null && <div class="small muted">{application.rejectReason}</div>}
        </>
      ),
    },
    { header: "Filed", cellClass: "small", cell: (application) => formatTime(application.createTime) },
    {
      header: "Review",
      cell: (application) =>
        application.status === "PENDING" && (
          <div class="row">
            <button type="button" class="primary" disabled={busy} onClick={() => approve(application)}>
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
        ),
    },
  ];
  return (
    <Section title="Market applications" id="applications-title">
      <ListFilters
        list={list}
        fields={[{ kind: "status", name: "status", label: "Status", statuses: applicationStatuses }]}
      />
      <OutcomeNotice outcome={outcome} />
      <PagedTable
        list={list}
        columns={columns}
        rowKey={(application) => application.applicationId}
        empty={`No application ${status === "" ? "yet" : `is ${status}`}.`}
      />
    </Section>
  );
}
