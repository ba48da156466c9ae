// The engine's tables in the embedded SQLite file: the journal (a hash chain since migration 3),
// and snapshots as a pointer row naming its chunk rows (engine-snapshots.ts). Applied migrations are
// never edited (test/store/sqlite-engine-store.test.ts pins their texts).

export const engineMigrations: readonly string[] = [
  `CREATE TABLE journal (
     sequence INTEGER PRIMARY KEY,
     now_ms INTEGER NOT NULL,
     command TEXT NOT NULL,
     events TEXT NOT NULL
   ) STRICT;
   CREATE TABLE snapshots (
     sequence INTEGER PRIMARY KEY,
     now_ms INTEGER NOT NULL,
     state TEXT NOT NULL,
     hash TEXT NOT NULL
   ) STRICT;`,
  `CREATE TABLE snapshot_chunks (
     write_id INTEGER NOT NULL,
     chunk INTEGER NOT NULL,
     bytes BLOB NOT NULL,
     PRIMARY KEY (write_id, chunk)
   ) STRICT;
   ALTER TABLE snapshots ADD COLUMN format TEXT NOT NULL DEFAULT 'text';
   ALTER TABLE snapshots ADD COLUMN write_id INTEGER;
   ALTER TABLE snapshots ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE snapshots ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;`,
  // The journal as a hash chain (src/engine/journal-chain.ts): each entry's chain hash and the one
  // before it, and the chain hash at each snapshot's sequence. Rows written before stay NULL: the
  // chain starts at the first hashed entry.
  `ALTER TABLE journal ADD COLUMN prev_hash TEXT;
   ALTER TABLE journal ADD COLUMN hash TEXT;
   ALTER TABLE snapshots ADD COLUMN chain_hash TEXT;`,
];
