// The PartnerRateLimits contract, run on every adapter.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IdentityStore } from "../../../src/store/identity.js";
import type { PartnerRateLimits } from "../../../src/store/partner-rate-limits.js";

export interface PartnerRateLimitHarness {
  /** A new store over a database with partners 1 and 2 and no limits, or a new instance over `sameAs`'s data. */
  create(sameAs?: PartnerRateLimits): Promise<PartnerRateLimits>;
}

export function describePartnerRateLimitsContract(
  adapterName: string,
  harness: PartnerRateLimitHarness,
): void {
  describe(`PartnerRateLimits contract: ${adapterName}`, { concurrency: false }, () => {
    it("sets, replaces and removes a partner's limit, and keeps it across a restart", async () => {
      const limits = await harness.create();
      assert.equal(await limits.of(1), undefined);
      await limits.set(1, 20);
      await limits.set(2, 5);
      assert.equal(await limits.of(1), 20);
      await limits.set(1, 7);
      assert.equal(await limits.of(1), 7);
      await limits.set(2, null);
      assert.equal(await limits.of(2), undefined);
      await limits.set(2, null);
      const restarted = await harness.create(limits);
      assert.equal(await restarted.of(1), 7);
      assert.equal(await restarted.of(2), undefined);
    });

    it("refuses a limit that is not positive, and keeps the one before", async () => {
      const limits = await harness.create();
      await limits.set(1, 3);
      await assert.rejects(limits.set(1, 0));
      const restarted = await harness.create(limits);
      assert.equal(await restarted.of(1), 3);
    });
  });
}

/** Partners 1 and 2, for stores whose rows reference partners. */
export async function withTwoPartners(identity: IdentityStore): Promise<void> {
  for (const name of ["one", "two"]) {
    await identity.createPartner({
      name,
      appKey: `app-${name}`,
      appSecretSealed: "sealed",
      apiKeySha256: `hash-${name}`,
      rsaPublicKey: null,
      commissionRateBps: 0,
      webhookUrl: null,
      createdAtMs: 0,
    });
  }
}
