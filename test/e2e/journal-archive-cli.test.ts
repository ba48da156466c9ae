// The journal archive as an operator drives it: POST /admin/journal/archive (admin token), and
// `predex journal archive` / `predex journal verify` against a running platform. The archive is a
// directory on SQLite and the database's own table on PostgreSQL.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { postgresJournalArchiveLocation } from "../../src/store/postgres/journal-archive.js";
import {
  startTestPlatform,
  type TestPlatform,
  testDatabaseEnv,
  testingOnPostgres,
  testPlatformEnv,
} from "./harness.js";

const run = promisify(execFile);
const cliEntry = join(import.meta.dirname, "../../src/cli/main.ts");

describe("journal archive from the admin API and the CLI", () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
    const partner = await test.createPartner();
    const { user } = await test.registeredUser({ partner });
    for (let index = 0; index < 5; index++) {
      const deposit = await test.admin("POST", "/admin/deposits", {
        userId: user.userId,
        amount: "10",
        txHash: `0xarchive${index}`,
      });
      assert.equal(deposit.status, 200, deposit.text);
    }
  });
  after(() => test.close());

  it("archives through the latest snapshot on request, and refuses a request without the token", async () => {
    const answer = await test.admin("POST", "/admin/journal/archive");
    assert.equal(answer.status, 200, answer.text);
    const data = (answer.json as { data: Record<string, unknown> }).data;
    assert.equal(
      data.directory,
      testingOnPostgres ? postgresJournalArchiveLocation : join(test.dataDir, "journal-archive"),
    );
    // No snapshot yet (one comes every 10,000 commands): nothing may leave the journal.
    assert.equal(data.snapshotSequence, "0");
    assert.equal(data.archivedEntries, 0);
    const refused = await test.raw("admin", { method: "POST", path: "/admin/journal/archive" });
    assert.equal(refused.status, 401);
  });

  it("predex journal archive and predex journal verify work beside the running platform", async () => {
    const env = {
      ...process.env,
      ...testPlatformEnv(test.dataDir),
      // The platform's database in the PostgreSQL pass (verify reads it).
      ...testDatabaseEnv(test.dataDir),
      PREDEX_ADMIN_TOKEN: test.platform.adminToken,
    };
    const archived = await run(
      process.execPath,
      ["--import", "tsx", cliEntry, "journal", "archive", "--admin-url", test.addresses.admin],
      { env },
    );
    assert.equal(JSON.parse(archived.stdout).archivedThrough, "0");
    const verified = await run(process.execPath, ["--import", "tsx", cliEntry, "journal", "verify"], { env });
    const report = JSON.parse(verified.stdout);
    assert.equal(
      report.archive,
      testingOnPostgres ? postgresJournalArchiveLocation : join(test.dataDir, "journal-archive"),
    );
    assert.ok(Number(report.lastSequence) >= 5, verified.stdout);
    assert.match(report.stateHash, /^[0-9a-f]{16}$/);
    const live = await test.platform.deps.engine.read((_state, position) => position.sequence);
    assert.ok(BigInt(report.lastSequence) <= live);
  });
});
