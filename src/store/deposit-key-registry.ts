// The port of the deposit key a cluster's database is bound to (PostgreSQL only: one SQLite file has
// one process, whose key lives beside it). Every node that hands out deposit addresses on the
// database must derive them from this key, or one user would get a different address from each node
// (issue #27, defect 9). The adapter is src/store/postgres/deposit-addresses.ts.

/** Where a cluster's deposit addresses come from. */
export type DepositKeySourceKind =
  /** PREDEX_DEPOSIT_XPUB: the operator's account-level xpub. */
  | "xpub"
  /** Without it: the demo key derived from the cluster's shared PREDEX_MASTER_KEY. */
  | "master-key-demo";

export interface DepositKeyRecord {
  readonly source: DepositKeySourceKind;
  /** The hash160 of the account public key, hex: DepositAddresses.keyId, the key's fingerprint. */
  readonly keyId: string;
  /** The account-level extended public key (public: it only derives addresses). */
  readonly accountXpub: string;
  readonly recordedAtMs: number;
}

export interface DepositKeyRegistry {
  /**
   * Records `candidate` as the database's key when none is recorded yet (the first node to start);
   * answers the key recorded, this one or the earlier one. Two nodes claiming at once agree.
   */
  claim(candidate: DepositKeyRecord): Promise<DepositKeyRecord>;
  /** The key recorded, if any. */
  current(): Promise<DepositKeyRecord | undefined>;
  /** The operator's deliberate change of key (`predex deposit-key adopt`); answers the key replaced. */
  replace(record: DepositKeyRecord): Promise<DepositKeyRecord | undefined>;
}
