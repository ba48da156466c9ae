// The market list: categories as toggle buttons, a search box, and the markets (hottest first, or
// best match) as cards linking to their pages. Refreshed now and then so chances stay current.

import { useEffect, useState } from "preact/hooks";
import { errorText, query, requestEnvelope } from "../shared/api.js";
import { formatAmount, formatPercent, formatTime } from "../shared/format.js";
import type { CategoryNode, MarketRecord, MarketsPage } from "./types.js";

export const listRefreshMs = 15_000;
const pageSize = 24;
/** Outcomes a card shows side by side; the rest are counted. */
const outcomesShownMax = 4;

function flatten(nodes: readonly CategoryNode[]): CategoryNode[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children)]);
}

function MarketCard({ market }: { market: MarketRecord }) {
  const outcome = market.outcomes[0];
  const yes = outcome?.options.find((option) => option.optionIndex === 0) ?? outcome?.options[0];
  return (
    <li>
      <a class="card" href={`#/market/${market.marketId}`} data-market-id={market.marketId}>
        <div class="row small muted" style={{ justifyContent: "space-between" }}>
          <span>{market.category || "Uncategorised"}</span>
          <span class={`badge ${market.status}`}>{market.status}</span>
        </div>
        <h3 style={{ marginTop: "0.4rem" }}>{market.title}</h3>
        {market.outcomes.length > 1 ? (
          // Several outcomes (an exclusive event's, say): each one's Yes chance, side by side.
          <p class="small" style={{ margin: "0.25rem 0" }} data-testid="outcome-chances">
            {market.outcomes.slice(0, outcomesShownMax).map((each, index) => {
              const eachYes = each.options.find((option) => option.optionIndex === 0) ?? each.options[0];
              return (
                <span key={each.outcomeId}>
                  {index === 0 ? "" : " · "}
                  {each.name} <strong>{eachYes === undefined ? "—" : formatPercent(eachYes.chance)}</strong>
                </span>
              );
            })}
            {market.outcomes.length > outcomesShownMax
              ? ` · ${market.outcomes.length - outcomesShownMax} more`
              : ""}
          </p>
        ) : (
          yes !== undefined && (
            <p style={{ margin: "0.25rem 0" }}>
              <span class="chance">{formatPercent(yes.chance)}</span>{" "}
              <span class="muted small">{yes.title}</span>
            </p>
          )
        )}
        <p class="muted small" style={{ margin: 0 }}>
          {formatAmount(market.volume)} USDT traded · {market.modelType} · ends {formatTime(market.endTime)}
        </p>
      </a>
    </li>
  );
}

export function MarketList() {
  const [categories, setCategories] = useState<CategoryNode[]>([]);
  const [categoryId, setCategoryId] = useState<string | null>(null);
  const [keywordInput, setKeywordInput] = useState("");
  const [keyword, setKeyword] = useState("");
  const [page, setPage] = useState(1);
  const [markets, setMarkets] = useState<MarketsPage | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    requestEnvelope<CategoryNode[]>("/console-api/categories")
      .then((tree) => setCategories(flatten(tree)))
      .catch((failure: unknown) => setError(errorText(failure)));
  }, []);

  useEffect(() => {
    let cancelled = false;
    const load = () =>
      requestEnvelope<MarketsPage>(
        `/console-api/markets${query({ page, pageSize, categoryId: keyword === "" ? categoryId : null, keyword })}`,
      )
        .then((found) => {
          if (cancelled) return;
          setMarkets(found);
          setError(null);
        })
        .catch((failure: unknown) => !cancelled && setError(errorText(failure)));
    void load();
    const timer = window.setInterval(load, listRefreshMs);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [categoryId, keyword, page]);

  useEffect(() => {
    // The list's first render with markets on screen (bench and tests read it).
    if (markets !== null && performance.getEntriesByName("predex:list-rendered").length === 0)
      performance.mark("predex:list-rendered");
  }, [markets]);

  const chooseCategory = (id: string | null) => {
    setCategoryId(id);
    setKeyword("");
    setKeywordInput("");
    setPage(1);
  };

  return (
    <div class="stack">
      <h1>Markets</h1>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          setKeyword(keywordInput.trim());
          setPage(1);
        }}
      >
        <label style={{ flex: "1 1 240px" }}>
          Search markets
          <input
            type="search"
            name="keyword"
            value={keywordInput}
            placeholder="Words in the title, tags or description"
            onInput={(event) => setKeywordInput(event.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" style={{ alignSelf: "flex-end" }}>
          Search
        </button>
      </form>
      <fieldset class="chips">
        <legend class="visually-hidden">Categories</legend>
        <button
          type="button"
          aria-pressed={categoryId === null && keyword === ""}
          onClick={() => chooseCategory(null)}
        >
          All
        </button>
        {categories.map((category) => (
          <button
            key={category.id}
            type="button"
            aria-pressed={categoryId === category.id && keyword === ""}
            onClick={() => chooseCategory(category.id)}
          >
            {category.level > 1 ? "› " : ""}
            {category.nameDisplay}
          </button>
        ))}
      </fieldset>
      {keyword !== "" && (
        <p class="muted" aria-live="polite">
          Results for “{keyword}”: {markets?.total ?? 0}
        </p>
      )}
      {error !== null && (
        <p class="notice error" role="alert">
          {error}
        </p>
      )}
      {markets === null ? (
        <p class="muted">Loading markets…</p>
      ) : markets.records.length === 0 ? (
        <p class="muted">No markets here yet.</p>
      ) : (
        <ul class="cards" aria-label="Markets">
          {markets.records.map((market) => (
            <MarketCard key={market.marketId} market={market} />
          ))}
        </ul>
      )}
      {markets !== null && markets.pages > 1 && (
        <nav class="row" aria-label="Pages">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span class="muted">
            Page {markets.current} of {markets.pages}
          </span>
          <button type="button" disabled={page >= markets.pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}
