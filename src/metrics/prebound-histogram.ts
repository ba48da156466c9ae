// A histogram whose label sets are bound once and whose observations are three number updates: no
// label hashing, validation or object per observation, as prom-client's own Histogram does on
// every `observe` (even through `labels(...)`). It registers with a prom-client Registry through
// the registry's metric interface (`name`, `help`, `type`, `get()`), so the exposition format,
// content type and the rest of the registry are prom-client's.

import type { Registry } from "prom-client";

export class PreboundHistogramChild {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly upperBounds: readonly number[],
  ) {
    this.counts = new Float64Array(upperBounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.upperBounds;
    let index = 0;
    while (index < bounds.length && value > bounds[index]!) index += 1;
    this.counts[index]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

interface ExportedValue {
  /** `le` for a bucket (written first, as prom-client does), else nothing. */
  readonly labels: Record<string, string | number>;
  readonly sharedLabels: Readonly<Record<string, string>>;
  readonly value: number;
  readonly metricName: string;
}

export class PreboundHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly #children: PreboundHistogramChild[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  /** A new label set; keep the child and observe on it (the caller owns deduplication). */
  child(labels: Readonly<Record<string, string>>): PreboundHistogramChild {
    const child = new PreboundHistogramChild(labels, this.upperBounds);
    this.#children.push(child);
    return child;
  }

  /** The registry's read: cumulative buckets, +Inf, sum and count per label set. */
  get(): { name: string; help: string; type: string; aggregator: string; values: ExportedValue[] } {
    const values: ExportedValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const child of this.#children) {
      let cumulative = 0;
      this.upperBounds.forEach((bound, index) => {
        cumulative += child.counts[index]!;
        values.push({
          labels: { le: bound },
          sharedLabels: child.labels,
          value: cumulative,
          metricName: bucketName,
        });
      });
      const shared = child.labels;
      values.push({
        labels: { le: "+Inf" },
        sharedLabels: shared,
        value: child.count,
        metricName: bucketName,
      });
      values.push({ labels: {}, sharedLabels: shared, value: child.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: shared, value: child.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const child of this.#children) {
      child.counts.fill(0);
      child.sum = 0;
      child.count = 0;
    }
  }
}
