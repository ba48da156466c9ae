// Markets through their whole life: create a draft, open it, watch orders arrive, close it, resolve
// it (a challenge window starts), finalize it, or void it. Every button is one admin API call; a
// refusal shows the API's own message.

import { useState } from "preact/hooks";
import { formatAmount, formatPercent, formatPriceCents, formatTime } from "../shared/format.js";
import { admin } from "./admin-api.js";
import { type Column, DataTable, ListFilters, PagedTable, usePagedList } from "./lists.js";
import type { Category, MarketDetail, MarketRow, RestingOrder } from "./types.js";
import { LoadError, OutcomeNotice, Section, useLoad, useOutcome } from "./ui.js";

export const ordersRefreshMs = 1_000;
const statuses = ["", "draft", "open", "closed", "resolving", "settled", "void"];
const dayMs = 24 * 60 * 60 * 1000;

/** A datetime-local value (local time, minutes) for a moment. */
function localInput(ms: number): string {
  const date = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}

function CreateMarket({ onCreated }: { onCreated: (marketId: string) => void }) {
  const categories = useLoad(() => admin<Category[]>("GET", "/admin/categories"), []);
  const { outcome, busy, run } = useOutcome();
  const [title, setTitle] = useState("");
  const [categoryId, setCategoryId] = useState("");
  const [modelType, setModelType] = useState("orderbook");
  const [outcomesText, setOutcomesText] = useState("");
  const [startTime, setStartTime] = useState(() => localInput(Date.now()));
  const [endTime, setEndTime] = useState(() => localInput(Date.now() + 7 * dayMs));
  const [tickSize, setTickSize] = useState("0.01");
  const [makerFee, setMakerFee] = useState("0");
  const [takerFee, setTakerFee] = useState("0");
  const [exclusive, setExclusive] = useState(false);
  const firstCategory = categories.data?.[0]?.id ?? "";

  const submit = (event: Event) => {
    event.preventDefault();
    const names = outcomesText
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    const outcomes = (names.length === 0 ? [title.trim()] : names).map((name) => ({
      name,
      options: [{ title: "Yes" }, { title: "No" }],
    }));
    void run(async () => {
      const created = await admin<MarketDetail>("POST", "/admin/markets", {
        title: title.trim(),
        categoryId: categoryId || firstCategory,
        modelType,
        tickSize,
        makerFee: Number(makerFee),
        takerFee: Number(takerFee),
        startTime: new Date(startTime).toISOString(),
        endTime: new Date(endTime).toISOString(),
        outcomes,
        ...(exclusive ? { exclusive: true } : {}),
      });
      onCreated(created.marketId);
      setTitle("");
      setOutcomesText("");
      setExclusive(false);
      return `Draft market ${created.marketId} created: open it to start trading.`;
    });
  };

  return (
    <Section title="New market" id="new-market-title">
      <LoadError error={categories.error} />
      <form class="fields" onSubmit={submit} aria-describedby="new-market-help">
        <label style={{ flex: "2 1 320px" }}>
          Title
          <input
            name="title"
            required
            value={title}
            onInput={(event) => setTitle(event.currentTarget.value)}
          />
        </label>
        <label>
          Category
          <select
            name="categoryId"
            value={categoryId || firstCategory}
            onChange={(event) => setCategoryId(event.currentTarget.value)}
          >
            {(categories.data ?? []).map((category) => (
              <option key={category.id} value={category.id}>
                {"— ".repeat(category.level - 1)}
                {category.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Pricing model
          <select
            name="modelType"
            value={modelType}
            onChange={(event) => setModelType(event.currentTarget.value)}
          >
            <option value="orderbook">Order book</option>
            <option value="AMM">AMM</option>
            <option value="parimutuel">Parimutuel</option>
          </select>
        </label>
        <label>
          Tick size
          <select
            name="tickSize"
            value={tickSize}
            onChange={(event) => setTickSize(event.currentTarget.value)}
          >
            {["0.1", "0.01", "0.001", "0.0001"].map((tick) => (
              <option key={tick} value={tick}>
                {tick}
              </option>
            ))}
          </select>
        </label>
        <label>
          Maker fee (bp)
          <input
            name="makerFee"
            type="number"
            min={0}
            max={1000}
            value={makerFee}
            onInput={(event) => setMakerFee(event.currentTarget.value)}
          />
        </label>
        <label>
          Taker fee (bp)
          <input
            name="takerFee"
            type="number"
            min={0}
            max={1000}
            value={takerFee}
            onInput={(event) => setTakerFee(event.currentTarget.value)}
          />
        </label>
        <label>
          Trading starts
          <input
            name="startTime"
            type="datetime-local"
            required
            value={startTime}
            onInput={(event) => setStartTime(event.currentTarget.value)}
          />
        </label>
        <label>
          Trading ends
          <input
            name="endTime"
            type="datetime-local"
            required
            value={endTime}
            onInput={(event) => setEndTime(event.currentTarget.value)}
          />
        </label>
        <label style={{ flex: "1 1 320px" }}>
          Outcomes, one per line (empty: one Yes/No question, the title)
          <textarea
            name="outcomes"
            rows={2}
            value={outcomesText}
            onInput={(event) => setOutcomesText(event.currentTarget.value)}
          />
        </label>
        <label class="inline">
          <input
            name="exclusive"
            type="checkbox"
            checked={exclusive}
            onChange={(event) => setExclusive(event.currentTarget.checked)}
          />
          Exclusive event: exactly one outcome wins (order book, two outcomes or more)
        </label>
        {/* Not before the categories are read: a market is filed under one, and a click before
            the list arrived sent none (400 from POST /admin/markets). */}
        <button type="submit" class="primary" disabled={busy || categories.data === null}>
          Create draft
        </button>
      </form>
      <p id="new-market-help" class="muted small">
        Each outcome is a Yes/No pair. The market is a draft until you open it. In an exclusive event one
        outcome's Yes wins and every other outcome's No, and a No share converts into a Yes share of every
        other outcome.
      </p>
      <OutcomeNotice outcome={outcome} />
    </Section>
  );
}

function ResolveForm(props: { market: MarketDetail; busy: boolean; onResolve: (body: object) => void }) {
  const { market } = props;
  const [winners, setWinners] = useState<Record<string, string>>({});
  const [windowSeconds, setWindowSeconds] = useState("86400");
  const [bond, setBond] = useState("10");
  // An exclusive event names one winning outcome: its Yes wins, every other outcome's No.
  const [winningOutcomeId, setWinningOutcomeId] = useState(market.outcomes[0]?.outcomeId ?? "");
  const optionOf = (outcome: MarketDetail["outcomes"][number], index: number) =>
    (outcome.options.find((option) => option.optionIndex === index) ?? outcome.options[index])?.optionId;
  const submit = (event: Event) => {
    event.preventDefault();
    props.onResolve({
      outcomes: market.outcomes.map((outcome) => ({
        outcomeId: outcome.outcomeId,
        winningOptionId: market.exclusive
          ? optionOf(outcome, outcome.outcomeId === winningOutcomeId ? 0 : 1)
          : (winners[outcome.outcomeId] ?? outcome.options[0]?.optionId),
      })),
      challengeWindowSeconds: Number(windowSeconds),
      challengeBondAmount: bond,
    });
  };
  return (
    <form class="fields" onSubmit={submit}>
      <fieldset class="fields" style={{ display: "flex", flexWrap: "wrap", gap: "0.75rem" }}>
        <legend>Propose the result</legend>
        {market.exclusive && (
          <label>
            Winning outcome
            <select
              name="winningOutcome"
              value={winningOutcomeId}
              onChange={(event) => setWinningOutcomeId(event.currentTarget.value)}
            >
              {market.outcomes.map((outcome) => (
                <option key={outcome.outcomeId} value={outcome.outcomeId}>
                  {outcome.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {!market.exclusive &&
          market.outcomes.map((outcome) => (
            <label key={outcome.outcomeId}>
              Winner of {outcome.name}
              <select
                name={`winner-${outcome.outcomeId}`}
                value={winners[outcome.outcomeId] ?? outcome.options[0]?.optionId}
                onChange={(event) =>
                  setWinners({ ...winners, [outcome.outcomeId]: event.currentTarget.value })
                }
              >
                {outcome.options.map((option) => (
                  <option key={option.optionId} value={option.optionId}>
                    {option.title}
                  </option>
                ))}
              </select>
            </label>
          ))}
        <label>
          Challenge window (seconds)
          <input
            name="challengeWindowSeconds"
            type="number"
            min={1}
            value={windowSeconds}
            onInput={(event) => setWindowSeconds(event.currentTarget.value)}
          />
        </label>
        <label>
          Challenge bond (USDT)
          <input
            name="challengeBondAmount"
            inputMode="decimal"
            value={bond}
            onInput={(event) => setBond(event.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={props.busy}>
          Resolve
        </button>
      </fieldset>
    </form>
  );
}

const restingOrderColumns: Column<RestingOrder>[] = [
  { header: "Order", cellClass: "mono", cell: (order) => order.orderId },
  { header: "User", cellClass: "mono", cell: (order) => order.userId },
  {
    header: "Outcome / option",
    cellClass: "small",
    cell: (order) => `${order.outcomeId} / ${order.optionId}`,
  },
  { header: "Side", cellClass: (order) => `side-${order.side}`, cell: (order) => order.side },
  { header: "Price", numeric: true, cell: (order) => formatPriceCents(order.limitPrice) },
  {
    header: "Left / shares",
    numeric: true,
    cell: (order) => `${formatAmount(order.remainingShares, 0)} / ${formatAmount(order.shares, 0)}`,
  },
  { header: "Placed", cellClass: "small", cell: (order) => formatTime(order.createdAt) },
];

function MarketPanel({ marketId, onChanged }: { marketId: string; onChanged: () => void }) {
  const detail = useLoad(() => admin<MarketDetail>("GET", `/admin/markets/${marketId}`), [marketId]);
  const orders = useLoad(
    () => admin<{ total: number; records: RestingOrder[] }>("GET", `/admin/markets/${marketId}/orders`),
    [marketId],
    ordersRefreshMs,
  );
  const { outcome, busy, run } = useOutcome();
  const [confirmVoid, setConfirmVoid] = useState(false);
  const market = detail.data;

  const act = (action: string, label: string, body?: unknown) =>
    run(
      async () => {
        const after = await admin<MarketDetail>("POST", `/admin/markets/${marketId}/${action}`, body);
        return `${label}: market ${after.marketId} is now ${after.status}.`;
      },
      () => {
        detail.reload();
        orders.reload();
        onChanged();
      },
    );

  if (market === null) return <LoadError error={detail.error} />;
  const status = market.status;
  return (
    <Section title={`Market ${market.marketId}: ${market.title}`} id="market-panel-title">
      <p class="small" style={{ margin: 0 }}>
        <span class={`badge ${status}`} data-testid="market-status">
          {status}
        </span>{" "}
        · {market.modelType}
        {market.exclusive ? " · exclusive event" : ""} · {market.category || "no category"} ·{" "}
        {formatAmount(market.volume)} USDT traded · {formatAmount(market.fee)} USDT fees ·{" "}
        {formatTime(market.startTime)} → {formatTime(market.endTime)}
        {market.ifHasChallenged === true ? " · challenged" : ""}
      </p>
      <ul class="small">
        {market.outcomes.map((each) => (
          <li key={each.outcomeId}>
            {each.name} (outcome {each.outcomeId}):{" "}
            {each.options
              .map(
                (option) =>
                  `${option.title} ${formatPercent(option.chance)}${option.isWin === true ? " ✓" : ""}`,
              )
              .join(" · ")}
          </li>
        ))}
      </ul>
      <fieldset class="row bare">
        <legend class="visually-hidden">Lifecycle actions</legend>
        {status === "draft" && (
          <button type="button" class="primary" disabled={busy} onClick={() => act("open", "Opened")}>
            Open for trading
          </button>
        )}
        {status === "open" && (
          <button type="button" class="primary" disabled={busy} onClick={() => act("close", "Closed")}>
            Close trading
          </button>
        )}
        {status === "resolving" && (
          <button type="button" class="primary" disabled={busy} onClick={() => act("finalize", "Finalized")}>
            Finalize now
          </button>
        )}
        {status !== "settled" &&
          status !== "void" &&
          (confirmVoid ? (
            <>
              <button
                type="button"
                class="danger"
                disabled={busy}
                onClick={() => void act("void", "Voided").then(() => setConfirmVoid(false))}
              >
                Confirm void: return every stake
              </button>
              <button type="button" onClick={() => setConfirmVoid(false)}>
                Keep the market
              </button>
            </>
          ) : (
            <button type="button" disabled={busy} onClick={() => setConfirmVoid(true)}>
              Void…
            </button>
          ))}
      </fieldset>
      {status === "closed" && (
        <ResolveForm
          market={market}
          busy={busy}
          onResolve={(body) => void act("resolve", "Resolved", body)}
        />
      )}
      <OutcomeNotice outcome={outcome} />
      <h3>Resting orders ({orders.data?.total ?? "…"})</h3>
      <LoadError error={orders.error} />
      {orders.data !== null && orders.data.records.length === 0 ? (
        <p class="muted">No order rests in this market.</p>
      ) : (
        <DataTable
          columns={restingOrderColumns}
          rows={orders.data?.records ?? []}
          rowKey={(order) => order.orderId}
          testId="market-orders"
        />
      )}
    </Section>
  );
}

export function Markets() {
  const list = usePagedList<MarketRow, { status: string; keyword: string }>("/admin/markets", {
    status: "",
    keyword: "",
  });
  const [selected, setSelected] = useState<string | null>(null);
  const columns: Column<MarketRow>[] = [
    { header: "Id", cellClass: "mono", cell: (market) => market.marketId },
    {
      header: "Title",
      cell: (market) => (
        <button
          type="button"
          class="small"
          aria-pressed={selected === market.marketId}
          onClick={() => setSelected(market.marketId)}
        >
          {market.title}
        </button>
      ),
    },
    { header: "Status", cell: (market) => <span class={`badge ${market.status}`}>{market.status}</span> },
    { header: "Model", cell: (market) => `${market.modelType}${market.exclusive ? " · exclusive" : ""}` },
    { header: "Category", cell: (market) => market.category },
    { header: "Volume", numeric: true, cell: (market) => formatAmount(market.volume) },
    { header: "Ends", cellClass: "small", cell: (market) => formatTime(market.endTime) },
  ];
  return (
    <div class="stack">
      <CreateMarket
        onCreated={(marketId) => {
          list.reload();
          setSelected(marketId);
        }}
      />
      {selected !== null && <MarketPanel key={selected} marketId={selected} onChanged={list.reload} />}
      <Section title="Markets" id="markets-title">
        <ListFilters
          list={list}
          fields={[
            { kind: "status", name: "status", label: "Status", statuses },
            { kind: "search", name: "keyword", label: "Title or id" },
          ]}
        />
        <PagedTable list={list} columns={columns} rowKey={(market) => market.marketId} testId="markets" />
      </Section>
    </div>
  );
}
