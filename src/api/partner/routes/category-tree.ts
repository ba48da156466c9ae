// GET /markets/category-tree (spec 000 rules 1–5): the online, non-deleted category nodes as a tree,
// display names in the asked language, else Accept-Language's best supported one, else en-US.

import { isLanguage, negotiateLanguage } from "../../../catalog/languages.js";
import { CategoryTree, CategoryTreeQuery } from "../../../contract/partner/catalogue.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { badRequest, sendServiceError } from "../errors.js";

export default defineRoutes((app, deps) => {
  app.get(
    "/markets/category-tree",
    {
      schema: {
        summary: "The category tree",
        description:
          "`language` is one of en-US, zh-CN, vi-VN, tr-TR, es-ES, pt-BR, ko-KR; without it, the highest-weight supported language of Accept-Language, else en-US. `nameDisplay` falls back to en-US, then to `name`. `category1Id` keeps only that level-1 node's tree (none if there is no such online node).",
        tags: ["Markets"],
        querystring: CategoryTreeQuery,
        response: partnerResponses(CategoryTree),
      },
    },
    async (request, reply) => {
      const { category1Id, language } = request.query;
      if (language !== undefined && !isLanguage(language)) {
        return sendServiceError(
          reply,
          badRequest("language must be one of en-US, zh-CN, vi-VN, tr-TR, es-ES, pt-BR, ko-KR"),
        );
      }
      const level1Id = category1Id === undefined ? undefined : parseId(category1Id);
      if (category1Id !== undefined && (level1Id === undefined || !/^[0-9]+$/.test(category1Id))) {
        return sendServiceError(reply, badRequest("category1Id must be a positive integer"));
      }
      const chosen = language ?? negotiateLanguage(request.headers["accept-language"]);
      return ok(await deps.categories.tree(chosen, level1Id));
    },
  );
});
