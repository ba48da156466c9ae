// Token units ↔ platform atoms: exact both ways for USDT's 6 decimals (× 100), round-down with
// the dust kept for tokens finer than the atom, and no amount finer than the token is ever sent.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { atomsToUnits, unitsToAtoms } from "../../src/chain/token-units.js";
import { loadChainConfig } from "../../src/config/chain-config.js";

describe("token units", () => {
  it("convert USDT's 6 decimals to 8 exactly, and back", () => {
    assert.deepEqual(unitsToAtoms(25_123_456n, 6), { atoms: 2_512_345_600n, dustUnits: 0n });
    assert.equal(atomsToUnits(2_512_345_600n, 6), 25_123_456n);
    assert.equal(atomsToUnits(2_512_345_601n, 6), undefined);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 128n }), (units) => {
        const { atoms, dustUnits } = unitsToAtoms(units, 6);
        assert.equal(dustUnits, 0n);
        assert.equal(atoms, units * 100n);
        assert.equal(atomsToUnits(atoms, 6), units);
      }),
    );
  });

  it("round an 18-decimal token down to the atom, keeping the rest as dust", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 200n }), (units) => {
        const { atoms, dustUnits } = unitsToAtoms(units, 18);
        assert.equal(atoms * 10n ** 10n + dustUnits, units);
        assert.ok(dustUnits < 10n ** 10n);
        assert.equal(atomsToUnits(atoms, 18), units - dustUnits);
      }),
    );
  });
});

describe("chain settings", () => {
  const error = (message: string) => new Error(message);
  const rpc = { PREDEX_CHAIN_RPC_URL: "http://127.0.0.1:8545", PREDEX_USDT_CONTRACT: `0x${"Ab".repeat(20)}` };

  it("leave the chain off without the RPC URL and contract, as npm start does", () => {
    assert.deepEqual(loadChainConfig({}, error), {
      depositXpub: undefined,
      network: undefined,
      withdrawalKeyFile: undefined,
    });
  });

  it("take defaults and refuse what cannot work, naming the variable", () => {
    const config = loadChainConfig(rpc, error);
    assert.equal(config.network?.confirmations, 12);
    assert.equal(config.network?.pollMs, 250);
    assert.equal(config.network?.usdtContract, `0x${"ab".repeat(20)}`);
    assert.throws(
      () => loadChainConfig({ PREDEX_CHAIN_RPC_URL: rpc.PREDEX_CHAIN_RPC_URL }, error),
      /set together/,
    );
    assert.throws(
      () => loadChainConfig({ ...rpc, PREDEX_USDT_CONTRACT: "0x12" }, error),
      /PREDEX_USDT_CONTRACT/,
    );
    assert.throws(
      () => loadChainConfig({ ...rpc, PREDEX_CHAIN_RPC_URL: "ws://x" }, error),
      /PREDEX_CHAIN_RPC_URL/,
    );
    assert.throws(
      () => loadChainConfig({ ...rpc, PREDEX_CONFIRMATIONS: "0" }, error),
      /PREDEX_CONFIRMATIONS/,
    );
    assert.throws(
      () => loadChainConfig({ PREDEX_WITHDRAWAL_KEY_FILE: "/k" }, error),
      /needs PREDEX_CHAIN_RPC_URL/,
    );
  });

  it("price withdrawals within a cap and replace a stuck one after a wait, by at least 10%", () => {
    assert.deepEqual(loadChainConfig(rpc, error).network?.withdrawalFees, {
      replaceAfterMs: 180_000,
      bumpPercent: 20,
      maxFeePerGasCap: 500_000_000_000n,
    });
    const set = loadChainConfig(
      {
        ...rpc,
        PREDEX_WITHDRAWAL_REPLACE_AFTER_MS: "60000",
        PREDEX_WITHDRAWAL_FEE_BUMP_PERCENT: "10",
        PREDEX_WITHDRAWAL_MAX_FEE_GWEI: "1.5",
      },
      error,
    );
    assert.deepEqual(set.network?.withdrawalFees, {
      replaceAfterMs: 60_000,
      bumpPercent: 10,
      maxFeePerGasCap: 1_500_000_000n,
    });
    assert.equal(
      loadChainConfig({ ...rpc, PREDEX_WITHDRAWAL_MAX_FEE_GWEI: "0.000000001" }, error).network
        ?.withdrawalFees.maxFeePerGasCap,
      1n,
    );
    for (const [name, value] of [
      ["PREDEX_WITHDRAWAL_FEE_BUMP_PERCENT", "9"],
      ["PREDEX_WITHDRAWAL_FEE_BUMP_PERCENT", "12.5"],
      ["PREDEX_WITHDRAWAL_REPLACE_AFTER_MS", "-1"],
      ["PREDEX_WITHDRAWAL_MAX_FEE_GWEI", "0"],
      ["PREDEX_WITHDRAWAL_MAX_FEE_GWEI", "1.0000000001"],
      ["PREDEX_WITHDRAWAL_MAX_FEE_GWEI", "lots"],
    ] as const) {
      assert.throws(
        () => loadChainConfig({ ...rpc, [name]: value }, error),
        new RegExp(name),
        `${name}=${value}`,
      );
    }
  });
});
