// The category tree of spec 000 (`GET /markets/category-tree`, "Category node"), built from the
// stored nodes. Pure: the service caches the result per language.

import type { CategoryRecord } from "../store/categories.js";
import { displayName, type Language } from "./languages.js";

export interface CategoryNode {
  readonly id: string;
  readonly level: number;
  /** The node's level-1 ancestor; null on level 1 itself. */
  readonly level1Id: string | null;
  /** The node's level-2 ancestor; null on levels 1 and 2. */
  readonly level2Id: string | null;
  readonly name: string;
  readonly nameDisplay: string;
  readonly logoUrl: string;
  readonly children: CategoryNode[];
}

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
