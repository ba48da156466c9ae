// `predex serve` as a child process on a data dir (SQLite, or the dir's database in the PostgreSQL
// pass), for the e2e tests that kill it with SIGKILL and start it again on the same data.

import { CliNode } from "../support/cli-node.js";
import { testDatabaseEnv, testMasterKeyHex, testPlatformEnv } from "./harness.js";

export interface ServeProcess {
  readonly node: CliNode;
  readonly gateway: string;
  readonly admin: string;
}

/** Starts `predex serve` and resolves with its gateway and admin addresses once it printed them. */
export async function startServeProcess(dataDir: string, adminToken: string): Promise<ServeProcess> {
  const node = CliNode.start(["serve"], {
    ...testPlatformEnv(dataDir),
    ...testDatabaseEnv(dataDir),
    PREDEX_ADMIN_TOKEN: adminToken,
    PREDEX_MASTER_KEY: testMasterKeyHex,
  });
  const address = (surface: string) =>
    node.waitFor(new RegExp(`^\\s+${surface}\\s.*?(https?://\\S+)`), 60_000);
  const [gateway, admin] = await Promise.all([address("gateway"), address("admin")]);
  return { node, gateway: gateway[1]!, admin: admin[1]! };
}
