// Shared pieces of the admin schemas. Ids in admin bodies may be strings or numbers (DESIGN §5).

import { Type } from "typebox";

export const FlexibleId = Type.Union(
  [Type.String({ pattern: "^[0-9]{1,15}$" }), Type.Integer({ minimum: 1 })],
  {
    description: "Numeric id, as a string or a number",
  },
);
