// A generic reader of the Prometheus text format (what GET /metrics answers): every sample line
// `name{labels} value`, summed per metric name, with the HELP text. Histogram buckets are left out;
// their _sum and _count stay.

export interface MetricFigure {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  /** The sum over every label set. */
  readonly value: number;
  readonly series: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/;

export function parsePrometheusText(text: string): MetricFigure[] {
  const help = new Map<string, string>();
  const types = new Map<string, string>();
  const sums = new Map<string, { value: number; series: number }>();
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (trimmed.startsWith("#")) {
      const [, keyword, name, ...rest] = trimmed.split(/\s+/);
      if (name === undefined) continue;
      if (keyword === "HELP") help.set(name, rest.join(" "));
      if (keyword === "TYPE") types.set(name, rest[0] ?? "");
      continue;
    }
    const match = sampleLine.exec(trimmed);
    if (match === null) continue;
    const name = match[1]!;
    if (name.endsWith("_bucket")) continue;
    const value = Number(match[3]);
    if (Number.isNaN(value)) continue;
    const sum = sums.get(name) ?? { value: 0, series: 0 };
    sums.set(name, { value: sum.value + value, series: sum.series + 1 });
  }
  const base = (name: string) => name.replace(/_(sum|count|total|created)$/, "");
  return [...sums].map(([name, sum]) => ({
    name,
    help: help.get(name) ?? help.get(base(name)) ?? "",
    type: types.get(name) ?? types.get(base(name)) ?? "",
    value: sum.value,
    series: sum.series,
  }));
}

export function formatFigure(name: string, value: number): string {
  if (name.endsWith("_bytes")) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let scaled = value;
    let unit = 0;
    while (scaled >= 1024 && unit < units.length - 1) {
      scaled /= 1024;
      unit += 1;
    }
    return `${scaled.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
  }
  if (name.endsWith("_seconds") || name.endsWith("_seconds_sum")) return `${value.toFixed(3)} s`;
  return Number.isInteger(value) ? value.toLocaleString() : value.toFixed(3);
}
