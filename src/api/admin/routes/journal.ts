// POST /admin/journal/archive: archive now what the snapshots have made unnecessary (the platform
// also does it every minute). `predex journal archive` calls it; see src/exchange/journal-archiver.ts.

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const JournalArchiveRun = Type.Object({
  archivedEntries: Type.Integer({ description: "Entries this run moved to the archive" }),
  segmentsWritten: Type.Integer(),
  archivedThrough: Type.String({ description: "The last archived sequence" }),
  snapshotSequence: Type.String({ description: "The latest snapshot's sequence: the archive's limit" }),
  committedSequence: Type.String(),
  segments: Type.Integer({ description: "Segment files in the archive" }),
  archiveBytes: Type.Integer({ description: "Compressed bytes of every segment" }),
  directory: Type.String({
    description:
      "Where the archive is: a directory (SQLite), or postgresql:engine_journal_archive (the database's own table)",
  }),
});

export default defineRoutes((app, deps) => {
  app.post(
    "/admin/journal/archive",
    {
      schema: {
        summary: "Move journal entries older than the latest snapshot to the archive",
        tags: ["Operations"],
        response: partnerResponses(JournalArchiveRun),
      },
    },
    async () => {
      if (deps.journalArchiver === undefined) throw new Error("This platform has no journal archive");
      return ok(await deps.journalArchiver.runNow());
    },
  );
});
