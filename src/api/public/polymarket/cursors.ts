// Polymarket's page cursor (clob-client's INITIAL_CURSOR and END_CURSOR): `next_cursor` is the
// base64 of the next offset, "MA==" (0) the first page and "LTE=" (-1) the end.

import { PolymarketFailure, polymarketErrors } from "./errors.js";

export const firstCursor = "MA==";
export const endCursor = "LTE=";

export const invalidCursor = new PolymarketFailure(400, polymarketErrors.invalidCursor);

export function encodeCursor(offset: number): string {
  return Buffer.from(String(offset), "utf8").toString("base64");
}

/** The offset a cursor names (-1: the end); null when it is not one this server (or Polymarket) hands out. */
export function decodeCursor(cursor: string | undefined): number | null {
  if (cursor === undefined || cursor === "") return 0;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64").toString("utf8");
  if (text === "-1") return -1;
  if (!/^(0|[1-9][0-9]{0,9})$/.test(text)) return null;
  return Number(text);
}
