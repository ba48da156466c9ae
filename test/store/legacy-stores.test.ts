// The legacy stores' schema written once (src/store/legacy.ts) renders to the exact texts each
// database first ran: an applied migration is never edited, so no database migrates again.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { legacyNonceMigrations } from "../../src/store/legacy.js";
import { postgresText } from "../../src/store/postgres/statements.js";
import { sqliteText } from "../../src/store/sqlite/statements.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("legacy stores' schema", () => {
  // SHA-256 of each migration's text as the two adapters wrote it before it was written once
  // (src/store/{sqlite,postgres}/legacy-nonces.ts until issue #32).
  it("renders the nonces' migration to the exact text each database first ran", () => {
    assert.deepEqual(legacyNonceMigrations.map(sqliteText).map(sha256), [
      "8aec649633f0377a579af964f8a72bc08708eb65a33e568a1098cef1975958b0",
    ]);
    assert.deepEqual(legacyNonceMigrations.map(postgresText).map(sha256), [
      "cdf24ef4c6b03dba34742f9136f97bbee15be3d75abfe38029cebf60795f7516",
    ]);
  });
});
