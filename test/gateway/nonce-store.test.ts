import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryNonceWindow } from "../../src/store/gateway-nonces.js";

describe("nonce window", () => {
  it("reports a nonce seen inside the window as replayed", () => {
    const store = new MemoryNonceWindow(1_000);
    assert.equal(store.remember("p", "a", 0), "fresh");
    assert.equal(store.remember("p", "a", 999), "replayed");
  });

  it("refuses a nonce through the window's last millisecond, forgets it after", () => {
    const store = new MemoryNonceWindow(1_000);
    store.remember("p", "a", 0);
    store.remember("p", "b", 500);
    assert.equal(store.remember("p", "a", 1_000), "replayed", "the window's last millisecond");
    assert.equal(store.remember("p", "c", 1_001), "fresh");
    assert.equal(store.sizeOf("p"), 2, "a expired and was pruned");
    assert.equal(store.remember("p", "a", 1_001), "fresh");
  });

  it("keeps nonces per partner: the same nonce of another partner is fresh", () => {
    const store = new MemoryNonceWindow(1_000);
    assert.equal(store.remember("p", "a", 0), "fresh");
    assert.equal(store.remember("q", "a", 0), "fresh");
  });

  it("is bounded per partner: a full partner is refused, the others are not", () => {
    const store = new MemoryNonceWindow(1_000, 2);
    store.remember("p", "a", 0);
    store.remember("p", "b", 0);
    assert.equal(store.remember("p", "c", 10), "full");
    assert.equal(store.remember("q", "c", 10), "fresh");
    assert.equal(store.remember("p", "c", 1_000), "full", "a and b live through 1,000");
    assert.equal(store.remember("p", "c", 1_001), "fresh");
  });
});
