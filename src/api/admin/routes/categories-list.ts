// GET /admin/categories: every category node the operator made, offline ones too (deleted ones
// only when asked), in id order, flat: the desk draws the tree from parentId.

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const Category = Type.Object({
  id: Type.String(),
  parentId: Type.Union([Type.String(), Type.Null()]),
  level: Type.Integer(),
  name: Type.String(),
  names: Type.Record(Type.String(), Type.String()),
  logoUrl: Type.String(),
  online: Type.Boolean(),
  deleted: Type.Boolean(),
});

export default defineRoutes((app, deps) => {
  const categories = deps.categories;
  app.get(
    "/admin/categories",
    {
      schema: {
        summary: "Every category node, offline ones too, in id order",
        tags: ["Categories"],
        querystring: Type.Object({
          includeDeleted: Type.Optional(Type.Boolean({ description: "Also the deleted nodes" })),
        }),
        response: partnerResponses(Type.Array(Category)),
      },
    },
    async (request) => {
      const all = await categories.all();
      return ok(
        all
          .filter((category) => request.query.includeDeleted === true || !category.deleted)
          .sort((a, b) => a.id - b.id)
          .map((category) => ({
            id: String(category.id),
            parentId: category.parentId === null ? null : String(category.parentId),
            level: category.level,
            name: category.name,
            names: category.names,
            logoUrl: category.logoUrl,
            online: category.online,
            deleted: category.deleted,
          })),
      );
    },
  );
});
