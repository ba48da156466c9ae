// The paging fields of spec 000's paginated operations: `page` and `pageSize` in the request, and
// `current`, `size`, `total`, `pages` beside (or inside) `data` in the response.

import { Type } from "typebox";

/**
 * The largest page number: what a 32-bit page holds, and far past the end of any table, so that
 * `current` always echoes the page asked for as an exact integer (a larger number came back as
 * 2.7658917993039505e+26). A page number beyond it is not one the service holds: in a query string
 * it is the spec's query deserialization failure (text/plain 400), in a JSON body a 400/1001.
 */
export const pageNumberMax = 2_147_483_647;

/**
 * A page below 1 is a 400/1001 with a sentence (DESIGN §8), not a schema error, so the schema
 * bounds the page number from above only.
 */
export const PageFields = {
  page: Type.Optional(
    Type.Integer({ maximum: pageNumberMax, description: `1-based, at most ${pageNumberMax}; default 1` }),
  ),
  pageSize: Type.Optional(Type.Integer({ description: "1 to 100 (larger is truncated to 100); default 10" })),
};

export const PageFieldsSchema = {
  current: Type.Integer(),
  size: Type.Integer(),
  total: Type.Integer(),
  pages: Type.Integer(),
};
