// The paging fields of spec 000's paginated operations: `page` and `pageSize` in the request, and
// `current`, `size`, `total`, `pages` beside (or inside) `data` in the response.

import { Type } from "typebox";

/** Integers without bounds in the schema: a page below 1 is a 400/1001 with a sentence, not a schema error. */
export const PageFields = {
  page: Type.Optional(Type.Integer({ description: "1-based; default 1" })),
  pageSize: Type.Optional(Type.Integer({ description: "1 to 100 (larger is truncated to 100); default 10" })),
};

export const PageFieldsSchema = {
  current: Type.Integer(),
  size: Type.Integer(),
  total: Type.Integer(),
  pages: Type.Integer(),
};
