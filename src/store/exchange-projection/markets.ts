// The exchange's market row of a MarketCreated event, computed once for both stores (event-rows.ts):
// the detail fields a partner filters and reads by are kept as text beside the whole details.

import type { MarketCreatedEvent } from "../../core/events.js";
import { encodePlainData } from "../../engine/journal-codec.js";

/**
 * The market's columns, in the INSERT's order: market id, title, model type, category, description,
 * rules, tags, creator, start, end, created at, details (each store appends what follows them).
 */
export type MarketRow = readonly [
  marketId: number,
  title: string,
  modelType: MarketCreatedEvent["modelType"],
  categoryId: string | null,
  description: string,
  rules: string,
  tags: string,
  creatorId: MarketCreatedEvent["creatorId"],
  startTimeMs: MarketCreatedEvent["startTimeMs"],
  endTimeMs: MarketCreatedEvent["endTimeMs"],
  createdAtMs: MarketCreatedEvent["createdAtMs"],
  details: string | null,
];

export function marketRowOf(event: MarketCreatedEvent): MarketRow {
  const details = event.details ?? null;
  return [
    event.marketId,
    event.title,
    event.modelType,
    textOf(details?.categoryId),
    textOf(details?.description) ?? "",
    textOf(details?.rules) ?? "",
    textOf(details?.tags) ?? "",
    event.creatorId,
    event.startTimeMs,
    event.endTimeMs,
    event.createdAtMs,
    details === null ? null : encodePlainData(details),
  ];
}

/** A detail given as a string or a number, as text; anything else is absent. */
function textOf(value: unknown): string | null {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : null;
}
