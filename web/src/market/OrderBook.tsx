// The live order book of one option: asks above (lowest nearest the spread), bids below, each level
// with a depth bar. Rendered from the feed's snapshot, at most once per animation frame.

import { useEffect } from "preact/hooks";
import { formatAmount, formatPriceCents } from "../shared/format.js";
import type { FeedSnapshot, Level } from "./market-feed.js";

export const levelsShownMax = 12;

function Row({ level, side, widest }: { level: Level; side: "bid" | "ask"; widest: number }) {
  const width = widest === 0 ? 0 : (Number(level.size) / widest) * 100;
  return (
    <tr class={side}>
      <td class="num price">
        <span>{formatPriceCents(level.price)}</span>
      </td>
      <td class="num">
        <span class="depth" aria-hidden="true" style={{ width: `${width.toFixed(1)}%` }} />
        <span>{formatAmount(level.size, 0)}</span>
      </td>
    </tr>
  );
}

export function OrderBook({ feed, optionTitle }: { feed: FeedSnapshot; optionTitle: string }) {
  useEffect(() => {
    // The first live book on screen: what "first render" means for a market page.
    if (feed.seeded && performance.getEntriesByName("predex:book-painted").length === 0)
      performance.mark("predex:book-painted");
  }, [feed.seeded]);
  const asks = feed.asks.slice(0, levelsShownMax);
  const bids = feed.bids.slice(0, levelsShownMax);
  const widest = Math.max(
    0,
    ...asks.map((level) => Number(level.size)),
    ...bids.map((level) => Number(level.size)),
  );
  const bestBid = bids[0];
  const bestAsk = asks[0];
  const spread =
    bestBid !== undefined && bestAsk !== undefined
      ? `Spread ${formatPriceCents(String(Number(bestAsk.price) - Number(bestBid.price)))}`
      : "One side is empty";
  return (
    <section
      class="panel"
      aria-labelledby="book-title"
      data-testid="order-book"
      data-updates={feed.updates}
      data-reseeds={feed.reseeds}
      data-state={feed.state}
    >
      <div class="row" style={{ justifyContent: "space-between" }}>
        <h2 id="book-title">Order book · {optionTitle}</h2>
        <span class={`badge ${feed.state}`} aria-live="polite">
          {feed.state}
        </span>
      </div>
      {!feed.seeded ? (
        <p class="muted">Waiting for the book…</p>
      ) : (
        <table class="book">
          <caption class="muted small" style={{ textAlign: "left" }}>
            Prices in ¢ per share of {optionTitle}; sizes in shares.
          </caption>
          <thead>
            <tr>
              <th class="num" scope="col">
                Price
              </th>
              <th class="num" scope="col">
                Shares
              </th>
            </tr>
          </thead>
          <tbody>
            {asks.length === 0 && (
              <tr>
                <td colSpan={2} class="muted">
                  No asks
                </td>
              </tr>
            )}
            {[...asks].reverse().map((level) => (
              <Row key={`a${level.price}`} level={level} side="ask" widest={widest} />
            ))}
            <tr class="spread">
              <td colSpan={2}>
                {spread}
                {feed.lastTradePrice !== null && ` · last ${formatPriceCents(feed.lastTradePrice)}`}
              </td>
            </tr>
            {bids.map((level) => (
              <Row key={`b${level.price}`} level={level} side="bid" widest={widest} />
            ))}
            {bids.length === 0 && (
              <tr>
                <td colSpan={2} class="muted">
                  No bids
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}
