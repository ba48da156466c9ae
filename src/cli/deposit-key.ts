// `predex deposit-key show|adopt`: the deposit key a PostgreSQL database is bound to (issue #27,
// defect 9; src/wallet/cluster-deposit-key.ts). Every node that hands out deposit addresses derives
// them from the key the database records, and the first node to start records its own. `show`
// compares it with this node's settings; `adopt` makes this node's key the database's, the
// operator's deliberate change (a real xpub after a trial on the demo key, a new xpub). It talks to
// the database directly (PREDEX_DATABASE_URL), like a migration, not through a running node.

import { ConfigError, loadConfig } from "../config.js";
import { openPostgresPool } from "../store/postgres/database.js";
import { openPostgresDepositKeyRegistry } from "../store/postgres/deposit-addresses.js";
import {
  type DepositKeyRecord,
  depositKeyRecordOf,
  describeDepositKey,
} from "../wallet/cluster-deposit-key.js";
import { clusterDepositKeySource } from "../wallet/demo-deposit-key.js";
import { resolveMasterKey } from "./master-key.js";

export const depositKeyUsage = `  deposit-key show          on PostgreSQL: the deposit key this database's addresses come from, and
                            this node's (PREDEX_DEPOSIT_XPUB, else the demo key of PREDEX_MASTER_KEY)
  deposit-key adopt         make this node's deposit key the database's (then restart every API node
                            with it; nodes with another key are refused at start)`;

export async function runDepositKey(args: readonly string[]): Promise<number> {
  const [action, ...rest] = args;
  if ((action !== "show" && action !== "adopt") || rest.length > 0) {
    console.error(`Usage:\n${depositKeyUsage}`);
    return 2;
  }
  const config = loadConfig();
  if (config.databaseUrl === undefined) {
    throw new ConfigError(
      "deposit-key needs PREDEX_DATABASE_URL: on SQLite the one process derives addresses from PREDEX_DEPOSIT_XPUB or the data dir's demo mnemonic, and nothing else must agree with it",
    );
  }
  // The master key is read only for the demo key (without PREDEX_DEPOSIT_XPUB).
  const source = clusterDepositKeySource(
    config.chain.depositXpub,
    () => resolveMasterKey(config, "external").key,
  );
  const mine = depositKeyRecordOf(source, Date.now());
  const pool = openPostgresPool({
    url: config.databaseUrl,
    applicationName: `predex-cli:${process.pid}`,
    poolConnectionsMax: 1,
  });
  try {
    const registry = await openPostgresDepositKeyRegistry(pool);
    if (action === "show") {
      const recorded = await registry.current();
      console.log(
        `This database: ${recorded === undefined ? "no key recorded yet (the first node to start records its own)" : recordedLine(recorded)}`,
      );
      console.log(`This node:     ${describeDepositKey(mine)}\n               ${mine.accountXpub}`);
      if (recorded !== undefined) {
        console.log(
          recorded.keyId === mine.keyId
            ? "They are the same: a node with these settings starts."
            : "They differ: a node with these settings is refused at start (`predex deposit-key adopt` changes the database's).",
        );
      }
      return 0;
    }
    const previous = await registry.replace(mine);
    console.log(`This database's deposit addresses now come from ${describeDepositKey(mine)}.`);
    if (previous !== undefined && previous.keyId !== mine.keyId) {
      console.log(`Before: ${recordedLine(previous)}`);
      console.log(
        "Restart every API node with the new key now: a node still running shows the old addresses until it restarts " +
          "(and is then refused until its settings match). Addresses issued under the old key still name their users " +
          "(POST /admin/deposits {address}) but are no longer watched for deposits; sweep them with the old key.",
      );
    }
    return 0;
  } finally {
    await pool.end();
  }
}

function recordedLine(record: DepositKeyRecord): string {
  return `${describeDepositKey(record)}, recorded ${new Date(record.recordedAtMs).toISOString()}\n               ${record.accountXpub}`;
}
