// The operator's category nodes and what the catalogue reads from them: the tree, and a market's
// category name. Categories are few and change rarely, so every node is kept in memory and the
// trees are cached per language until the next change.

import { categoryLevelsMax } from "../contract/partner/catalogue.js";
import { type Rejection, reject } from "../core/errors.js";
import type { CategoryRecord, CategoryStore } from "../store/categories.js";
import { buildCategoryTree, type CategoryNode } from "./category-tree.js";
import { defaultLanguage, displayName, isLanguage, type Language, supportedLanguages } from "./languages.js";

export { categoryLevelsMax };
export const categoryNameLengthMax = 64;

export type CategoryResult = { ok: true; value: CategoryRecord } | { ok: false; rejection: Rejection };

export interface CreateCategoryInput {
  readonly name: string;
  readonly parentId?: number | undefined;
  readonly names?: Readonly<Record<string, string>> | undefined;
  readonly logoUrl?: string | undefined;
}

export interface UpdateCategoryInput {
  readonly name?: string | undefined;
  readonly names?: Readonly<Record<string, string>> | undefined;
  readonly logoUrl?: string | undefined;
  readonly online?: boolean | undefined;
}

export class CategoryService {
  readonly #store: CategoryStore;
  readonly #nowMs: () => number;
  #byId: Map<number, CategoryRecord> | undefined;
  readonly #trees = new Map<Language, CategoryNode[]>();
  readonly #onChange: (() => void)[] = [];

  constructor(options: { store: CategoryStore; nowMs: () => number }) {
    this.#store = options.store;
    this.#nowMs = options.nowMs;
  }

  /** Called after every change (the catalogue drops what shows category names). */
  onChange(listener: () => void): void {
    this.#onChange.push(listener);
  }

  async create(input: CreateCategoryInput): Promise<CategoryResult> {
    const names = checkNames(input.names);
    if (!names.ok) return names;
    let level = 1;
    if (input.parentId !== undefined) {
      const parent = (await this.#nodes()).get(input.parentId);
      if (parent === undefined || parent.deleted)
        return { ok: false, rejection: reject("CATEGORY_NOT_FOUND") };
      level = parent.level + 1;
      if (level > categoryLevelsMax) {
        return invalid(`categories nest at most ${categoryLevelsMax} levels deep`);
      }
    }
    const created = await this.#store.insert({
      parentId: input.parentId ?? null,
      level,
      name: input.name.trim(),
      names: names.value,
      logoUrl: input.logoUrl ?? "",
      createdAtMs: this.#nowMs(),
    });
    this.#changed();
    return { ok: true, value: created };
  }

  async update(id: number, input: UpdateCategoryInput): Promise<CategoryResult> {
    const names = checkNames(input.names);
    if (!names.ok) return names;
    const current = (await this.#nodes()).get(id);
    if (current === undefined || current.deleted)
      return { ok: false, rejection: reject("CATEGORY_NOT_FOUND") };
    const updated = await this.#store.update(id, {
      ...(input.name === undefined ? {} : { name: input.name.trim() }),
      ...(input.names === undefined ? {} : { names: names.value }),
      ...(input.logoUrl === undefined ? {} : { logoUrl: input.logoUrl }),
      ...(input.online === undefined ? {} : { online: input.online }),
    });
    this.#changed();
    return updated === undefined
      ? { ok: false, rejection: reject("CATEGORY_NOT_FOUND") }
      : { ok: true, value: updated };
  }

  /** Soft delete: the node leaves the tree; markets filed under it keep its name. */
  async delete(id: number): Promise<CategoryResult> {
    const current = (await this.#nodes()).get(id);
    if (current === undefined || current.deleted)
      return { ok: false, rejection: reject("CATEGORY_NOT_FOUND") };
    const updated = await this.#store.update(id, { deleted: true });
    this.#changed();
    return updated === undefined
      ? { ok: false, rejection: reject("CATEGORY_NOT_FOUND") }
      : { ok: true, value: updated };
  }

  /** True when a market may be filed under this id: the node exists and is not deleted. */
  /** Every node the operator made, offline and deleted ones too (the operator's desk lists them). */
  async all(): Promise<CategoryRecord[]> {
    return this.#store.all();
  }

  async isUsable(id: number): Promise<boolean> {
    const node = (await this.#nodes()).get(id);
    return node !== undefined && !node.deleted;
  }

  /** The online, non-deleted tree; with `category1Id`, only that level-1 node's tree (or none). */
  async tree(language: Language, category1Id?: number): Promise<CategoryNode[]> {
    let forest = this.#trees.get(language);
    if (forest === undefined) {
      forest = buildCategoryTree([...(await this.#nodes()).values()], language);
      this.#trees.set(language, forest);
    }
    return category1Id === undefined ? forest : forest.filter((root) => root.id === String(category1Id));
  }

  /**
   * What a market record shows as `category`: its node's en-US display name (the list and detail
   * take no language), "" when the market has no known node.
   */
  async marketCategoryName(categoryId: string | null): Promise<string> {
    if (categoryId === null || !/^[0-9]{1,15}$/.test(categoryId)) return "";
    const node = (await this.#nodes()).get(Number(categoryId));
    return node === undefined ? "" : displayName(node.name, node.names, defaultLanguage);
  }

  async #nodes(): Promise<Map<number, CategoryRecord>> {
    if (this.#byId === undefined) {
      const all = await this.#store.all();
      this.#byId = new Map(all.map((category) => [category.id, category]));
    }
    return this.#byId;
  }

  #changed(): void {
    this.#byId = undefined;
    this.#trees.clear();
    for (const listener of this.#onChange) listener();
  }
}

function invalid(message: string): { ok: false; rejection: Rejection } {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

function checkNames(
  names: Readonly<Record<string, string>> | undefined,
): { ok: true; value: Record<string, string> } | { ok: false; rejection: Rejection } {
  const checked: Record<string, string> = {};
  for (const [language, name] of Object.entries(names ?? {})) {
    if (!isLanguage(language)) {
      return invalid(`names: ${language} is not one of ${supportedLanguages.join(", ")}`);
    }
    const trimmed = name.trim();
    if (trimmed === "" || trimmed.length > categoryNameLengthMax) {
      return invalid(`names.${language} must be 1 to ${categoryNameLengthMax} characters`);
    }
    checked[language] = trimmed;
  }
  return { ok: true, value: checked };
}
