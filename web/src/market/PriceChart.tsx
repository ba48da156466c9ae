// The price chart of one option from GET /prices-history (interval and fidelity chosen by the
// reader), drawn with lightweight-charts; live trades of the page's feed extend the line.

import {
  AreaSeries,
  createChart,
  type IChartApi,
  type ISeriesApi,
  type UTCTimestamp,
} from "lightweight-charts";
import { useEffect, useRef, useState } from "preact/hooks";
import { query } from "../shared/api.js";

export const intervals = ["1h", "6h", "1d", "1w", "1m", "max"] as const;
export const fidelities = [1, 5, 15, 60, 240, 1440] as const;

interface HistoryPoint {
  readonly t: number;
  readonly p: number;
}

function fidelityLabel(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 1440) return `${minutes / 60} h`;
  return `${minutes / 1440} d`;
}

export function PriceChart(props: {
  assetId: string;
  title: string;
  lastTrade: { price: string; timeMs: number } | null;
}) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<"Area"> | null>(null);
  const lastTime = useRef(0);
  const [interval, setChartInterval] = useState<(typeof intervals)[number]>("1d");
  const [fidelity, setFidelity] = useState<number>(5);
  const [status, setStatus] = useState("Loading price history…");

  const [ready, setReady] = useState(false);
  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    let created: IChartApi | null = null;
    // Built after the first paint: the book and the trades come first on a slow machine.
    const frame = requestAnimationFrame(() => {
      created = createChart(element, {
        autoSize: true,
        layout: { background: { color: "#ffffff" }, textColor: "#4b5563", attributionLogo: false },
        grid: { vertLines: { color: "#f0f2f5" }, horzLines: { color: "#f0f2f5" } },
        rightPriceScale: { borderColor: "#dde1e7" },
        timeScale: { borderColor: "#dde1e7", timeVisible: true, secondsVisible: false },
        localization: { priceFormatter: (price: number) => `${(price * 100).toFixed(1)}¢` },
      });
      chart.current = created;
      series.current = created.addSeries(AreaSeries, {
        lineColor: "#1f5fd1",
        topColor: "rgba(31, 95, 209, 0.28)",
        bottomColor: "rgba(31, 95, 209, 0.02)",
        lineWidth: 2,
        priceFormat: { type: "price", precision: 3, minMove: 0.001 },
      });
      setReady(true);
    });
    return () => {
      cancelAnimationFrame(frame);
      created?.remove();
      chart.current = null;
      series.current = null;
    };
  }, []);

  useEffect(() => {
    if (!ready) return;
    let cancelled = false;
    setStatus("Loading price history…");
    fetch(`/prices-history${query({ market: props.assetId, interval, fidelity })}`)
      .then(async (response) => {
        const body = (await response.json()) as { history?: HistoryPoint[]; error?: string };
        if (!response.ok || body.history === undefined)
          throw new Error(body.error ?? `HTTP ${response.status}`);
        return body.history;
      })
      .then((history) => {
        if (cancelled || series.current === null) return;
        // The chart needs strictly increasing times: keep the last point of any second.
        const points: { time: UTCTimestamp; value: number }[] = [];
        for (const point of history) {
          const time = point.t as UTCTimestamp;
          if (points.length > 0 && points[points.length - 1]!.time >= time) points.pop();
          points.push({ time, value: point.p });
        }
        series.current.setData(points);
        lastTime.current = points.length === 0 ? 0 : points[points.length - 1]!.time;
        chart.current?.timeScale().fitContent();
        setStatus(points.length === 0 ? "No trades in this interval yet." : "");
      })
      .catch((error: unknown) => {
        if (!cancelled)
          setStatus(`Price history unavailable: ${error instanceof Error ? error.message : String(error)}`);
      });
    return () => {
      cancelled = true;
    };
  }, [props.assetId, interval, fidelity, ready]);

  useEffect(() => {
    const trade = props.lastTrade;
    if (trade === null || series.current === null) return;
    const time = Math.floor(trade.timeMs / 1000);
    if (time < lastTime.current) return;
    series.current.update({ time: time as UTCTimestamp, value: Number(trade.price) });
    lastTime.current = time;
    setStatus("");
  }, [props.lastTrade]);

  return (
    <section class="panel" aria-labelledby="chart-title">
      <div class="row" style={{ justifyContent: "space-between" }}>
        <h2 id="chart-title">Price: {props.title}</h2>
        <div class="row">
          <label>
            Interval
            <select
              value={interval}
              onChange={(event) => setChartInterval(event.currentTarget.value as (typeof intervals)[number])}
            >
              {intervals.map((each) => (
                <option key={each} value={each}>
                  {each === "1m" ? "1 month" : each}
                </option>
              ))}
            </select>
          </label>
          <label>
            Fidelity
            <select value={fidelity} onChange={(event) => setFidelity(Number(event.currentTarget.value))}>
              {fidelities.map((each) => (
                <option key={each} value={each}>
                  {fidelityLabel(each)}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      <div ref={container} class="chart" role="img" aria-label={`Price chart of ${props.title}`} />
      <p class="muted small" aria-live="polite">
        {status}
      </p>
    </section>
  );
}
