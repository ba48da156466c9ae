// The category tree of spec 000 (`GET /markets/category-tree`, "Category node"), built from the
// stored nodes. Pure: the service caches the result per language.

import type { CategoryNode } from "../contract/partner/catalogue.js";
import type { CategoryRecord } from "../store/categories.js";
import { displayName, type Language } from "./languages.js";

export type { CategoryNode };

/**
 * Rule 1: online, non-deleted nodes only, as a forest of level-1 roots (by id). A node under an
 * offline or deleted parent is hidden with it: showing it would detach it from its place.
 */
export function buildCategoryTree(categories: readonly CategoryRecord[], language: Language): CategoryNode[] {
  const childrenOf = new Map<number | null, CategoryRecord[]>();
  for (const category of categories) {
    if (!category.online || category.deleted) continue;
    const siblings = childrenOf.get(category.parentId);
    if (siblings === undefined) childrenOf.set(category.parentId, [category]);
    else siblings.push(category);
  }
  const build = (category: CategoryRecord, ancestors: readonly string[]): CategoryNode => {
    const id = String(category.id);
    return {
      id,
      level: category.level,
      level1Id: ancestors[0] ?? null,
      level2Id: ancestors[1] ?? null,
      name: category.name,
      nameDisplay: displayName(category.name, category.names, language),
      logoUrl: category.logoUrl,
      children: (childrenOf.get(category.id) ?? []).map((child) => build(child, [...ancestors, id])),
    };
  };
  return (childrenOf.get(null) ?? []).map((root) => build(root, []));
}
