// Display formatting. Amounts arrive as exact decimal strings and are grouped as text, never through
// floating point; prices become percentages only for display.

/** "12345.5" → "12,345.50"; keeps every decimal the server sent beyond two. */
export function formatAmount(decimal: string, decimalsMin = 2): string {
  const negative = decimal.startsWith("-");
  const [whole = "0", fraction = ""] = (negative ? decimal.slice(1) : decimal).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const decimals = fraction.replace(/0+$/, "").padEnd(decimalsMin, "0");
  return `${negative ? "-" : ""}${grouped}${decimals === "" ? "" : `.${decimals}`}`;
}

/** A price between 0 and 1 as cents-style text: "0.57" → "57¢"; sub-cent ticks keep their decimals. */
export function formatPriceCents(price: string): string {
  const cents = Number(price) * 100;
  return `${Number.isInteger(Math.round(cents * 100) / 100) ? cents.toFixed(0) : cents.toFixed(2)}¢`;
}

export function formatPercent(chance: number): string {
  return `${(chance * 100).toFixed(chance > 0 && chance < 0.01 ? 2 : 1)}%`;
}

/** "2026-11-22T10:00:00Z" → local short date and time. */
export function formatTime(iso: string | number | null): string {
  if (iso === null) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}

export function formatClock(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}
