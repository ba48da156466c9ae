// One market: its outcomes and chances, the live book of the chosen option (from /ws/market), the
// latest trades, and the price chart. Read only, no credentials.

import { useEffect, useLayoutEffect, useMemo, useState } from "preact/hooks";
import { errorText, query, requestEnvelope } from "../shared/api.js";
import { formatAmount, formatClock, formatPercent, formatPriceCents, formatTime } from "../shared/format.js";
import { EventOutcomes } from "./EventOutcomes.js";
import { dropPrewarmedSocket, type FeedSnapshot, type LiveTrade, MarketFeed } from "./market-feed.js";
import { OrderBook } from "./OrderBook.js";
import { PriceChart } from "./PriceChart.js";
import type { ConsoleMarket, Trade } from "./types.js";

export const detailRefreshMs = 10_000;
const tradesShown = 20;

const emptyFeed: FeedSnapshot = {
  state: "connecting",
  bids: [],
  asks: [],
  seeded: false,
  tickSize: null,
  lastTradePrice: null,
  trades: [],
  updates: 0,
  reseeds: 0,
};

function Trades({ trades }: { trades: readonly LiveTrade[] }) {
  return (
    <section class="panel" aria-labelledby="trades-title">
      <h2 id="trades-title">Recent trades</h2>
      {trades.length === 0 ? (
        <p class="muted">No trades yet.</p>
      ) : (
        <div class="table-wrap">
          <table data-testid="trades">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Side</th>
                <th class="num" scope="col">
                  Price
                </th>
                <th class="num" scope="col">
                  Shares
                </th>
              </tr>
            </thead>
            <tbody>
              {trades.slice(0, tradesShown).map((trade) => (
                <tr key={trade.id}>
                  <td class="num" style={{ textAlign: "left" }}>
                    {formatClock(trade.timeMs)}
                  </td>
                  <td class={`side-${trade.side}`}>{trade.side === "BUY" ? "Buy" : "Sell"}</td>
                  <td class="num">{formatPriceCents(trade.price)}</td>
                  <td class="num">{formatAmount(trade.size, 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function MarketPage({ marketId }: { marketId: string }) {
  const [data, setData] = useState<ConsoleMarket | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [outcomeId, setOutcomeId] = useState<string | null>(null);
  const [optionIndex, setOptionIndex] = useState(0);
  const [feed, setFeed] = useState<FeedSnapshot>(emptyFeed);
  const [history, setHistory] = useState<LiveTrade[]>([]);

  useEffect(() => {
    let cancelled = false;
    const load = () =>
      requestEnvelope<ConsoleMarket>(`/console-api/markets/${encodeURIComponent(marketId)}`)
        .then((found) => {
          if (cancelled) return;
          setData(found);
          setError(null);
          document.title = `${found.market.title} · predex`;
          performance.mark("predex:market-rendered");
        })
        .catch((failure: unknown) => !cancelled && setError(errorText(failure)));
    void load();
    const timer = window.setInterval(load, detailRefreshMs);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [marketId]);

  const market = data?.market;
  const outcome = market?.outcomes.find((each) => each.outcomeId === outcomeId) ?? market?.outcomes[0];
  const option = outcome?.options.find((each) => each.optionIndex === optionIndex) ?? outcome?.options[0];
  const asset = data?.assets.find((each) => each.optionId === option?.optionId);
  const hasBook = market?.modelType === "orderbook";
  const exclusive = data?.exclusive === true;
  const loaded = market !== undefined;

  // A layout effect, so the socket is opening before the chart (a child's effect) is built.
  useLayoutEffect(() => {
    if (loaded && !hasBook) dropPrewarmedSocket();
    if (asset === undefined || !hasBook) return;
    setFeed(emptyFeed);
    const live = new MarketFeed({ assetId: asset.assetId, onChange: setFeed });
    live.start();
    return () => live.stop();
  }, [asset?.assetId, hasBook, loaded]);

  useEffect(() => {
    if (asset === undefined) return;
    setHistory([]);
    requestEnvelope<Trade[]>(
      `/console-api/markets/${encodeURIComponent(marketId)}/trades${query({ optionId: asset.optionId, limit: tradesShown })}`,
    )
      .then((trades) =>
        setHistory(
          trades.map((trade) => ({
            id: trade.tradeId,
            price: trade.price,
            size: trade.shares,
            side: trade.side,
            timeMs: trade.timeMs,
          })),
        ),
      )
      .catch(() => setHistory([]));
  }, [asset?.optionId, marketId]);

  const trades = useMemo(() => {
    const seen = new Set(feed.trades.map((trade) => trade.id));
    return [...feed.trades, ...history.filter((trade) => !seen.has(trade.id))];
  }, [feed.trades, history]);
  const lastTrade =
    feed.trades[0] === undefined ? null : { price: feed.trades[0].price, timeMs: feed.trades[0].timeMs };

  if (error !== null && data === null)
    return (
      <div class="stack">
        <p class="notice error" role="alert">
          {error}
        </p>
        <a href="#/">Back to the markets</a>
      </div>
    );
  if (market === undefined || outcome === undefined || option === undefined)
    return <p class="muted">Loading the market…</p>;

  return (
    <div class="stack">
      <nav aria-label="Breadcrumb" class="small">
        <a href="#/">Markets</a> › {market.category || "Uncategorised"}
      </nav>
      <div>
        <h1>{market.title}</h1>
        <p class="muted small" style={{ margin: 0 }}>
          <span class={`badge ${market.status}`}>{market.status}</span> · {market.modelType}
          {exclusive ? " · exclusive event" : ""} · {formatAmount(market.volume)} USDT traded · ends{" "}
          {formatTime(market.endTime)} · by {market.creator.name}
        </p>
      </div>
      {exclusive && (
        <EventOutcomes
          market={market}
          shownOutcomeId={outcome.outcomeId}
          onShowBook={(id) => {
            setOutcomeId(id);
            setOptionIndex(0);
          }}
        />
      )}
      {market.outcomes.length > 1 && !exclusive && (
        <fieldset class="chips">
          <legend class="visually-hidden">Outcomes</legend>
          {market.outcomes.map((each) => (
            <button
              key={each.outcomeId}
              type="button"
              aria-pressed={each.outcomeId === outcome.outcomeId}
              onClick={() => setOutcomeId(each.outcomeId)}
            >
              {each.name}
            </button>
          ))}
        </fieldset>
      )}
      <fieldset class="chips">
        <legend class="visually-hidden">Options</legend>
        {outcome.options.map((each) => (
          <button
            key={each.optionId}
            type="button"
            aria-pressed={each.optionId === option.optionId}
            onClick={() => setOptionIndex(each.optionIndex)}
          >
            {each.title} {formatPercent(each.chance)}
            {each.isWin === true ? " ✓ won" : ""}
          </button>
        ))}
      </fieldset>
      <div class="grid-3">
        <div class="stack">
          {asset !== undefined && (
            <PriceChart
              assetId={asset.assetId}
              title={market.outcomes.length > 1 ? `${outcome.name} · ${option.title}` : option.title}
              lastTrade={lastTrade}
            />
          )}
          <Trades trades={trades} />
        </div>
        <div class="stack">
          {hasBook ? (
            <OrderBook
              feed={feed}
              optionTitle={market.outcomes.length > 1 ? `${outcome.name} · ${option.title}` : option.title}
            />
          ) : (
            <section class="panel">
              <h2>Pricing</h2>
              <p class="muted">
                This market is priced by its {market.modelType === "AMM" ? "automated market maker" : "pool"},
                not an order book.
              </p>
            </section>
          )}
          <section class="panel" aria-labelledby="about-title">
            <h2 id="about-title">About</h2>
            {market.description !== "" && <p>{market.description}</p>}
            {market.rules !== "" && (
              <p class="small">
                <strong>Rules:</strong> {market.rules}
              </p>
            )}
            <p class="small muted">
              Opens {formatTime(market.startTime)} · closes {formatTime(market.endTime)} · fees maker{" "}
              {market.makerFee} bp, taker {market.takerFee} bp
            </p>
            {asset !== undefined && (
              <p class="small muted">
                Asset id (for /ws/market and /prices-history): <span class="mono">{asset.assetId}</span>
              </p>
            )}
          </section>
        </div>
      </div>
    </div>
  );
}
