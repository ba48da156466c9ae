// The desk's first page: what waits for the operator (pending withdrawals and applications, markets
// by status) and the live predex_* figures of GET /metrics, refreshed every few seconds.

import { admin, metricsText, type Paged } from "./admin-api.js";
import { formatFigure, parsePrometheusText } from "./metrics.js";
import { LoadError, Section, useLoad } from "./ui.js";

export const overviewRefreshMs = 5_000;
const watchedStatuses = ["draft", "open", "closed", "resolving"] as const;

export function Overview({ go }: { go: (tab: string) => void }) {
  const counts = useLoad(
    async () => {
      const [withdrawals, applications, ...markets] = await Promise.all([
        admin<{ count: number }>("GET", "/admin/withdrawals?status=PENDING&pageSize=1"),
        admin<Paged<unknown>>("GET", "/admin/applications?status=PENDING&pageSize=1"),
        ...watchedStatuses.map((status) =>
          admin<Paged<unknown>>("GET", `/admin/markets?status=${status}&pageSize=1`),
        ),
      ]);
      return {
        withdrawals: withdrawals.count,
        applications: applications.total,
        markets: markets.map((page) => page.total),
      };
    },
    [],
    overviewRefreshMs,
  );
  // data null: not loaded yet; data.text null: this platform has no /metrics (404).
  const metrics = useLoad(async () => ({ text: await metricsText() }), [], overviewRefreshMs);
  const text = metrics.data?.text;
  const figures =
    typeof text === "string"
      ? parsePrometheusText(text).filter((figure) => figure.name.startsWith("predex_"))
      : [];

  return (
    <div class="stack">
      <Section title="Waiting for you" id="waiting-title">
        <LoadError error={counts.error} />
        {counts.data !== null && (
          <div class="figures">
            <button
              type="button"
              class="figure"
              onClick={() => go("withdrawals")}
              style={{ textAlign: "left" }}
            >
              <div class="muted small">Withdrawals to review</div>
              <div class="value" data-testid="pending-withdrawals">
                {counts.data.withdrawals}
              </div>
            </button>
            <button
              type="button"
              class="figure"
              onClick={() => go("applications")}
              style={{ textAlign: "left" }}
            >
              <div class="muted small">Market applications</div>
              <div class="value">{counts.data.applications}</div>
            </button>
            {watchedStatuses.map((status, index) => (
              <button
                key={status}
                type="button"
                class="figure"
                onClick={() => go("markets")}
                style={{ textAlign: "left" }}
              >
                <div class="muted small">Markets {status}</div>
                <div class="value">{counts.data?.markets[index]}</div>
              </button>
            ))}
          </div>
        )}
      </Section>
      <Section title="Live figures (/metrics)" id="metrics-title">
        <LoadError error={metrics.error} />
        {metrics.data === null ? (
          metrics.error === null && <p class="muted">Loading…</p>
        ) : text === null ? (
          <p class="notice" data-testid="metrics-state">
            Metrics not available: this platform answers 404 for GET /metrics.
          </p>
        ) : figures.length === 0 ? (
          <p class="muted" data-testid="metrics-state">
            /metrics answered, but with no predex_* figures.
          </p>
        ) : (
          <div class="table-wrap">
            <table data-testid="metrics">
              <thead>
                <tr>
                  <th scope="col">Figure</th>
                  <th class="num" scope="col">
                    Value
                  </th>
                  <th scope="col">Series</th>
                  <th scope="col">About</th>
                </tr>
              </thead>
              <tbody>
                {figures.map((figure) => (
                  <tr key={figure.name}>
                    <td class="mono">{figure.name}</td>
                    <td class="num">{formatFigure(figure.name, figure.value)}</td>
                    <td class="num">{figure.series}</td>
                    <td class="small muted">{figure.help}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </div>
  );
}
