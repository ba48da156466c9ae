// The console's pure helpers, outside the browser: the generic Prometheus text reader the desk
// shows /metrics with, and the exact, string-only grouping of amounts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFigure, parsePrometheusText } from "../../web/src/desk/metrics.js";
import { formatAmount } from "../../web/src/shared/format.js";

describe("parsePrometheusText", () => {
  it("sums each metric over its label sets, keeps HELP and TYPE, and leaves histogram buckets out", () => {
    const text = [
      "# HELP predex_orders_total Orders accepted.",
      "# TYPE predex_orders_total counter",
      'predex_orders_total{surface="partner"} 12',
      'predex_orders_total{surface="legacy"} 3',
      "# HELP predex_request_seconds Request latency.",
      "# TYPE predex_request_seconds histogram",
      'predex_request_seconds_bucket{le="0.1"} 4',
      'predex_request_seconds_bucket{le="+Inf"} 5',
      "predex_request_seconds_sum 0.75",
      "predex_request_seconds_count 5",
      "process_resident_memory_bytes 1048576",
      "malformed line without value",
      "",
    ].join("\n");
    const figures = parsePrometheusText(text);
    assert.deepEqual(
      figures.map((figure) => [figure.name, figure.value, figure.series, figure.type]),
      [
        ["predex_orders_total", 15, 2, "counter"],
        ["predex_request_seconds_sum", 0.75, 1, "histogram"],
        ["predex_request_seconds_count", 5, 1, "histogram"],
        ["process_resident_memory_bytes", 1048576, 1, ""],
      ],
    );
    assert.equal(figures[0]?.help, "Orders accepted.");
    assert.equal(formatFigure("process_resident_memory_bytes", 1048576), "1.0 MiB");
  });
});

describe("formatAmount", () => {
  it("groups thousands as text and keeps every decimal sent", () => {
    assert.equal(formatAmount("1234567.5"), "1,234,567.50");
    assert.equal(formatAmount("0.00000001"), "0.00000001");
    assert.equal(formatAmount("-1000"), "-1,000.00");
    assert.equal(formatAmount("60", 0), "60");
    assert.equal(formatAmount("90071992547409931.12345678"), "90,071,992,547,409,931.12345678");
  });
});
