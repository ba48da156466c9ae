// The CategoryStore contract, run on every adapter (test/store/sqlite/service-stores.test.ts,
// test/store/postgres-services.test.ts).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CategoryStore } from "../../../src/store/categories.js";

export function describeCategoryStoreContract(
  adapterName: string,
  create: () => Promise<CategoryStore>,
): void {
  describe(`CategoryStore contract: ${adapterName}`, { concurrency: false }, () => {
    it("inserts nodes with increasing ids and reads them back exactly", async () => {
      const store = await create();
      const root = await store.insert({
        parentId: null,
        level: 1,
        name: "Sports",
        names: { "zh-CN": "体育", "en-US": "Sports" },
        logoUrl: "",
        createdAtMs: 1_700_000_000_001,
      });
      const child = await store.insert({
        parentId: root.id,
        level: 2,
        name: "Football",
        names: {},
        logoUrl: "https://example.com/f.png",
        createdAtMs: 1_700_000_000_002,
      });
      assert.ok(child.id > root.id);
      assert.deepEqual(root, {
        id: root.id,
        parentId: null,
        level: 1,
        name: "Sports",
        names: { "zh-CN": "体育", "en-US": "Sports" },
        logoUrl: "",
        online: true,
        deleted: false,
        createdAtMs: 1_700_000_000_001,
      });
      assert.deepEqual(await store.byId(child.id), child);
      assert.deepEqual(await store.all(), [root, child]);
      assert.equal(await store.byId(child.id + 100), undefined);
    });

    it("updates only the fields given, and answers undefined for an unknown id", async () => {
      const store = await create();
      const node = await store.insert({
        parentId: null,
        level: 1,
        name: "Politics",
        names: { "en-US": "Politics" },
        logoUrl: "a",
        createdAtMs: 5,
      });
      const offline = await store.update(node.id, { online: false });
      assert.deepEqual(offline, { ...node, online: false });
      const renamed = await store.update(node.id, { name: "Elections", names: { "fr-FR": "Élections" } });
      assert.deepEqual(renamed, {
        ...node,
        online: false,
        name: "Elections",
        names: { "fr-FR": "Élections" },
      });
      const deleted = await store.update(node.id, { deleted: true, online: true, logoUrl: "" });
      assert.deepEqual(deleted, {
        ...node,
        name: "Elections",
        names: { "fr-FR": "Élections" },
        deleted: true,
        logoUrl: "",
      });
      assert.deepEqual(await store.all(), [deleted]);
      assert.equal(await store.update(node.id + 100, { name: "x" }), undefined);
    });
  });
}
