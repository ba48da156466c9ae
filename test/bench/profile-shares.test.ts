import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CpuProfile, orderPathRules, profileShares } from "../../bench/lib/profile-shares.js";

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});

// root → idle | nonce store → better-sqlite3 | node:http → order command | GC
const profile: CpuProfile = {
  nodes: [
    frame(1, "(root)", "", [2, 3, 5, 7]),
    frame(2, "(idle)", ""),
    frame(3, "flush", "file:///app/src/store/sqlite/gateway-nonces.ts", [4]),
    frame(4, "sqliteTransaction", "file:///app/node_modules/better-sqlite3/lib/methods/transaction.js"),
    frame(5, "parserOnHeadersComplete", "node:_http_common", [6]),
    frame(6, "placeOrderCommand", "file:///app/src/api/partner/order-command.ts"),
    frame(7, "(garbage collector)", ""),
  ],
  startTime: 0,
  endTime: 70,
  samples: [2, 4, 4, 6, 5, 7, 2],
  // Each sample lasts until the next one: timeDeltas[i + 1] is sample i's duration.
  timeDeltas: [10, 10, 10, 10, 10, 10, 10],
};

const shareOf = (shares: ReturnType<typeof profileShares>, part: string) =>
  shares.parts.find((entry) => entry.part === part)?.share;

describe("profile shares", () => {
  it("gives idle time to no part and the rest by owner, then by innermost named frame", () => {
    const shares = profileShares(profile, orderPathRules);
    assert.equal(shares.busySeconds, 50 / 1e6);
    // The nonce owns its commit although better-sqlite3 is the innermost frame.
    assert.equal(shareOf(shares, "nonce (its commit included)"), 0.4);
    assert.equal(shareOf(shares, "route and order view"), 0.2);
    assert.equal(shareOf(shares, "node:http"), 0.2);
    assert.equal(shareOf(shares, "garbage collection"), 0.2);
    assert.equal(
      shares.parts.reduce((sum, entry) => sum + entry.share, 0),
      1,
    );
  });

  it("counts only the samples between the first and last that have the window's frame", () => {
    const shares = profileShares(profile, orderPathRules, /placeOrderCommand/);
    assert.deepEqual(shares.parts, [{ part: "route and order view", share: 1 }]);
  });

  it("names the innermost frames no rule claims", () => {
    const unnamed: CpuProfile = {
      ...profile,
      nodes: [frame(1, "(root)", "", [2]), frame(2, "mystery", "node:internal/whatever")],
      samples: [2, 2],
      timeDeltas: [5, 5],
    };
    const shares = profileShares(unnamed, orderPathRules);
    assert.deepEqual(shares.unnamed, [{ frame: "mystery node:internal/whatever", share: 1 }]);
  });
});
