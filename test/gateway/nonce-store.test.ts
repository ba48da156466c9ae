import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NonceStore } from "../../src/gateway/nonce-store.js";

describe("nonce store", () => {
  it("reports a nonce seen inside the window as replayed", () => {
    const store = new NonceStore(1_000);
    assert.equal(store.remember("a", 0), "fresh");
    assert.equal(store.remember("a", 999), "replayed");
  });

  it("forgets nonces once the window has passed", () => {
    const store = new NonceStore(1_000);
    store.remember("a", 0);
    store.remember("b", 500);
    assert.equal(store.remember("c", 1_000), "fresh");
    assert.equal(store.size, 2, "a expired and was pruned");
    assert.equal(store.remember("a", 1_000), "fresh");
  });

  it("is bounded: when full of live nonces it refuses new ones instead of growing", () => {
    const store = new NonceStore(1_000, 2);
    store.remember("a", 0);
    store.remember("b", 0);
    assert.equal(store.remember("c", 10), "full");
    assert.equal(store.remember("c", 1_000), "fresh");
  });
});
