// One deposit key per cluster (issue #27, defect 9): on PostgreSQL every node that hands out deposit
// addresses derives them from the key the database records, so a user gets the same address from
// every node. The first node to start records its key; a node whose key differs (another
// PREDEX_DEPOSIT_XPUB, an xpub where the cluster runs on the demo key or the other way round, or, on
// the demo key, another master key) is refused at start, before it shows anyone an address the
// others would not watch. The operator changes the key on purpose with `predex deposit-key adopt`.

import type {
  DepositKeyRecord,
  DepositKeyRegistry,
  DepositKeySourceKind,
} from "../store/deposit-key-registry.js";
import type { DepositKeySource } from "./demo-deposit-key.js";
import { DepositAddresses } from "./deposit-addresses.js";

export type { DepositKeyRecord, DepositKeyRegistry, DepositKeySourceKind };

/** A node configured with another deposit key than its database records. */
export class DepositKeyMismatchError extends Error {
  override name = "DepositKeyMismatchError";
}

/** The record a node with this key would write (its fingerprint is DepositAddresses.keyId). */
export function depositKeyRecordOf(source: DepositKeySource, nowMs: number): DepositKeyRecord {
  return {
    source: source.demo === undefined ? "xpub" : "master-key-demo",
    keyId: DepositAddresses.keyIdOf(source.accountKey),
    accountXpub: source.accountKey.publicExtendedKey,
    recordedAtMs: nowMs,
  };
}

/** How an operator recognises a key: where it comes from and its fingerprint. */
export function describeDepositKey(record: Pick<DepositKeyRecord, "source" | "keyId">): string {
  const origin =
    record.source === "xpub" ? "PREDEX_DEPOSIT_XPUB" : "the demo key derived from PREDEX_MASTER_KEY";
  return `${origin} (key id ${record.keyId})`;
}

/**
 * Records this node's key as the cluster's when none is recorded, or checks it is the recorded one;
 * throws DepositKeyMismatchError, saying what to change, when it is not.
 */
export async function claimClusterDepositKey(
  registry: DepositKeyRegistry,
  source: DepositKeySource,
  nowMs: number,
): Promise<DepositKeyRecord> {
  const mine = depositKeyRecordOf(source, nowMs);
  const recorded = await registry.claim(mine);
  if (recorded.keyId === mine.keyId) return recorded;
  const fix =
    recorded.source === "xpub"
      ? `set PREDEX_DEPOSIT_XPUB on this node to the cluster's, ${recorded.accountXpub}`
      : mine.source === "xpub"
        ? "unset PREDEX_DEPOSIT_XPUB on this node (the cluster runs on the demo key)"
        : "give this node the cluster's PREDEX_MASTER_KEY";
  throw new DepositKeyMismatchError(
    `this node's deposit addresses would come from ${describeDepositKey(mine)}, but this database's come from ` +
      `${describeDepositKey(recorded)}, recorded ${new Date(recorded.recordedAtMs).toISOString()}: ` +
      `a user would get another address from this node. Every node must use the same key: ${fix}. ` +
      "To change the cluster's key on purpose: `predex deposit-key adopt` (docs/deployment.md).",
  );
}
