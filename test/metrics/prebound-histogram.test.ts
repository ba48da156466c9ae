// The pre-bound histogram behind predex_http_request_duration_seconds writes what a prom-client
// Histogram would: cumulative buckets with `le` first, +Inf, sum and count per label set.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Histogram, Registry } from "prom-client";
import { PreboundHistogram } from "../../src/metrics/prebound-histogram.js";

describe("PreboundHistogram", () => {
  it("exposes the same text as prom-client's Histogram for the same observations", async () => {
    const bounds = [0.001, 0.01, 0.1];
    const observations = [0.0004, 0.001, 0.002, 0.05, 0.5, 20];
    const ours = new Registry();
    const theirs = new Registry();
    const prebound = new PreboundHistogram("x_seconds", "help", bounds, ours);
    const reference = new Histogram({
      name: "x_seconds",
      help: "help",
      labelNames: ["route", "status"],
      buckets: bounds,
      registers: [theirs],
    });
    const labels = { route: "/user/:id", status: "200" };
    const child = prebound.child(labels);
    for (const value of observations) {
      child.observe(value);
      reference.observe(labels, value);
    }
    assert.equal(await ours.metrics(), await theirs.metrics());
    prebound.reset();
    reference.reset();
    reference.labels(labels).observe(0);
    child.observe(0);
    assert.equal(await ours.metrics(), await theirs.metrics());
  });
});
