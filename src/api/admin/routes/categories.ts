// POST /admin/categories (DESIGN §5) and the edits the tree's "online, non-deleted" rule needs:
// PATCH /admin/categories/{id} (names, logo, online) and DELETE /admin/categories/{id} (soft).
// Every answer is the stored node, ids as strings.

import { type Static, Type } from "typebox";
import { type CategoryResult, categoryNameLengthMax } from "../../../catalog/categories.js";
import { FlexibleId } from "../../../contract/admin.js";
import { NonEmptyString, ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import type { CategoryRecord } from "../../../store/categories.js";
import { sendRejection } from "../../partner/errors.js";
import { HttpUrlOrEmpty } from "../../shared/http-url.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const Names = Type.Record(Type.String({ maxLength: 16 }), Type.String({ maxLength: categoryNameLengthMax }), {
  description: 'Display names by language: {"en-US": "…", "zh-CN": "…"}; the seven tags of the spec',
});
const LogoUrl = HttpUrlOrEmpty();

const CreateCategoryRequest = Type.Object({
  name: NonEmptyString({ maxLength: categoryNameLengthMax }),
  parentId: Type.Optional(FlexibleId),
  names: Type.Optional(Names),
  logoUrl: Type.Optional(LogoUrl),
});
type CreateCategoryRequest = Static<typeof CreateCategoryRequest>;

const UpdateCategoryRequest = Type.Object({
  name: Type.Optional(NonEmptyString({ maxLength: categoryNameLengthMax })),
  names: Type.Optional(Names),
  logoUrl: Type.Optional(LogoUrl),
  online: Type.Optional(Type.Boolean({ description: "false takes the node (and its subtree) off the tree" })),
});

const AdminCategory = Type.Object({
  id: Type.String(),
  parentId: Type.Union([Type.String(), Type.Null()]),
  level: Type.Integer(),
  name: Type.String(),
  names: Type.Record(Type.String(), Type.String()),
  logoUrl: Type.String(),
  online: Type.Boolean(),
  deleted: Type.Boolean(),
});

const CategoryIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });

function categoryView(category: CategoryRecord) {
  return {
    id: String(category.id),
    parentId: category.parentId === null ? null : String(category.parentId),
    level: category.level,
    name: category.name,
    names: category.names,
    logoUrl: category.logoUrl,
    online: category.online,
    deleted: category.deleted,
  };
}

export default defineRoutes((app, deps) => {
  const answer = (result: CategoryResult, reply: Parameters<typeof sendRejection>[0]) =>
    result.ok ? ok(categoryView(result.value)) : sendRejection(reply, result.rejection);

  app.post(
    "/admin/categories",
    {
      schema: {
        summary: "Create a category node",
        description:
          "Without parentId, a level-1 node; nodes nest at most three levels. Unknown parent: 404/1404.",
        tags: ["Categories"],
        body: CreateCategoryRequest,
        response: partnerResponses(AdminCategory),
      },
    },
    async (request, reply) => {
      const body: CreateCategoryRequest = request.body;
      let parentId: number | undefined;
      if (body.parentId !== undefined) {
        parentId = parseId(body.parentId);
        if (parentId === undefined) return sendRejection(reply, reject("CATEGORY_NOT_FOUND"));
      }
      return answer(await deps.categories.create({ ...body, parentId }), reply);
    },
  );

  app.patch(
    "/admin/categories/:id",
    {
      schema: {
        summary: "Rename a category node, change its logo, or take it offline / online",
        tags: ["Categories"],
        params: CategoryIdParams,
        body: UpdateCategoryRequest,
        response: partnerResponses(AdminCategory),
      },
    },
    async (request, reply) => {
      const id = parseId(request.params.id);
      if (id === undefined) return sendRejection(reply, reject("CATEGORY_NOT_FOUND"));
      return answer(await deps.categories.update(id, request.body), reply);
    },
  );

  app.delete(
    "/admin/categories/:id",
    {
      schema: {
        summary: "Delete a category node (it leaves the tree; its markets keep its name)",
        tags: ["Categories"],
        params: CategoryIdParams,
        response: partnerResponses(AdminCategory),
      },
    },
    async (request, reply) => {
      const id = parseId(request.params.id);
      if (id === undefined) return sendRejection(reply, reject("CATEGORY_NOT_FOUND"));
      return answer(await deps.categories.delete(id), reply);
    },
  );
});
