import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildCategoryTree } from "../../src/catalog/category-tree.js";
import type { CategoryRecord } from "../../src/store/categories.js";

const node = (id: number, parentId: number | null, level: number, extra: Partial<CategoryRecord> = {}) =>
  ({
    id,
    parentId,
    level,
    name: `n${id}`,
    names: {},
    logoUrl: "",
    online: true,
    deleted: false,
    createdAtMs: 0,
    ...extra,
  }) satisfies CategoryRecord;

describe("category tree", () => {
  it("nests nodes under their parents with their level-1 and level-2 ancestors", () => {
    const tree = buildCategoryTree(
      [node(1, null, 1), node(2, 1, 2), node(3, 2, 3), node(4, null, 1)],
      "en-US",
    );
    assert.deepEqual(
      tree.map((root) => root.id),
      ["1", "4"],
    );
    const level3 = tree[0]!.children[0]!.children[0]!;
    assert.deepEqual([level3.id, level3.level1Id, level3.level2Id], ["3", "1", "2"]);
    assert.deepEqual([tree[0]!.children[0]!.level1Id, tree[0]!.children[0]!.level2Id], ["1", null]);
  });

  it("hides offline and deleted nodes with everything under them", () => {
    const tree = buildCategoryTree(
      [
        node(1, null, 1),
        node(2, 1, 2, { online: false }),
        node(3, 2, 3),
        node(4, null, 1, { deleted: true }),
      ],
      "en-US",
    );
    assert.deepEqual(tree.length, 1);
    assert.deepEqual(tree[0]!.children, []);
  });

  it("shows display names in the language asked", () => {
    const [root] = buildCategoryTree(
      [node(1, null, 1, { names: { "zh-CN": "体育", "en-US": "Sports" } })],
      "ko-KR",
    );
    assert.deepEqual([root!.name, root!.nameDisplay], ["n1", "Sports"]);
  });
});
