// The engine's tables on PostgreSQL and the rules the database itself enforces on them, so that no
// client (a paused leader that wakes late, a bug, an operator's psql) can write a journal that
// diverges:
// - engine_leader holds the fencing epoch: one row, bumped by every takeover (leadership.ts).
// - Every journal row and snapshot carries the epoch of the leader that wrote it; a trigger refuses
//   the whole statement unless that epoch is the current one, and holds the leader row FOR SHARE
//   until commit, so a takeover's epoch bump waits for an in-flight append and every append after
//   the bump sees the new epoch (Kleppmann's fencing token; TigerBeetle's view number). A stale
//   leader that repeats a sequence its successor wrote meets the primary key first; the store tells
//   it that it is fenced (engine-store.ts).
// - The same trigger refuses a batch that does not continue the journal exactly (a gap or a repeat),
//   and wakes followers with NOTIFY at commit (a wake-up only: they read by sequence).

/** The NOTIFY channel journal appends signal on; the payload is the batch's last sequence. */
export const journalChannel = "predex_journal";

/** SQLSTATE of an append or snapshot from an epoch that is not the leader's. */
export const fencedSqlState = "PX001";
/** SQLSTATE of a batch that does not continue the journal. */
export const outOfOrderSqlState = "PX002";

export const engineMigrations: readonly string[] = [
  `CREATE TABLE engine_leader (
     singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
     epoch bigint NOT NULL CHECK (epoch >= 0),
     node_id text,
     lock_backend_pid integer,
     acquired_at timestamptz,
     lease_expires_at timestamptz,
     advertised_url text
   );
   INSERT INTO engine_leader (epoch) VALUES (0);

   CREATE TABLE engine_journal (
     sequence bigint PRIMARY KEY CHECK (sequence > 0),
     now_ms bigint NOT NULL,
     command text NOT NULL,
     events text NOT NULL,
     epoch bigint NOT NULL
   );

   CREATE TABLE engine_snapshots (
     sequence bigint PRIMARY KEY CHECK (sequence >= 0),
     now_ms bigint NOT NULL,
     state text NOT NULL,
     hash text NOT NULL,
     epoch bigint NOT NULL
   );

   CREATE FUNCTION engine_journal_guard() RETURNS trigger LANGUAGE plpgsql AS $guard$
   DECLARE
     leader_epoch bigint;
     stale_epoch bigint;
     first_sequence bigint;
     last_sequence bigint;
     inserted_count bigint;
   BEGIN
     SELECT epoch INTO leader_epoch FROM engine_leader FOR SHARE;
     SELECT min(sequence), max(sequence), count(*), min(epoch) FILTER (WHERE epoch <> leader_epoch)
       INTO first_sequence, last_sequence, inserted_count, stale_epoch
       FROM inserted;
     IF inserted_count = 0 THEN
       RETURN NULL;
     END IF;
     IF stale_epoch IS NOT NULL THEN
       RAISE EXCEPTION USING ERRCODE = '${fencedSqlState}',
         MESSAGE = format('Fenced: journal append from epoch %s, the leader epoch is %s', stale_epoch, leader_epoch);
     END IF;
     -- The primary key refuses repeats; with no repeats, a contiguous batch whose predecessor exists
     -- continues the journal (which was contiguous before, by the same rule).
     IF last_sequence - first_sequence + 1 <> inserted_count
        OR (first_sequence > 1
            AND NOT EXISTS (SELECT 1 FROM engine_journal WHERE sequence = first_sequence - 1)) THEN
       RAISE EXCEPTION USING ERRCODE = '${outOfOrderSqlState}',
         MESSAGE = format('Journal write out of order: sequences %s..%s (%s rows) do not continue the journal',
                          first_sequence, last_sequence, inserted_count);
     END IF;
     PERFORM pg_notify('${journalChannel}', last_sequence::text);
     RETURN NULL;
   END
   $guard$;

   CREATE TRIGGER engine_journal_guard
     AFTER INSERT ON engine_journal
     REFERENCING NEW TABLE AS inserted
     FOR EACH STATEMENT EXECUTE FUNCTION engine_journal_guard();

   -- A first, per-row look at the epoch, before the primary key: a stale leader that repeats a
   -- sequence its successor has written is told it is fenced, not that the key exists. The check
   -- that counts (under the row lock, at the end of the statement) is the guard above.
   CREATE FUNCTION engine_journal_epoch_check() RETURNS trigger LANGUAGE plpgsql AS $check$
   DECLARE
     leader_epoch bigint;
   BEGIN
     SELECT epoch INTO leader_epoch FROM engine_leader;
     IF NEW.epoch <> leader_epoch THEN
       RAISE EXCEPTION USING ERRCODE = '${fencedSqlState}',
         MESSAGE = format('Fenced: journal append from epoch %s, the leader epoch is %s', NEW.epoch, leader_epoch);
     END IF;
     RETURN NEW;
   END
   $check$;

   CREATE TRIGGER engine_journal_epoch_check
     BEFORE INSERT ON engine_journal
     FOR EACH ROW EXECUTE FUNCTION engine_journal_epoch_check();

   -- The journal is the record of what happened: rows are never rewritten.
   CREATE FUNCTION engine_journal_immutable() RETURNS trigger LANGUAGE plpgsql AS $immutable$
   BEGIN
     RAISE EXCEPTION 'The engine journal is append-only';
   END
   $immutable$;

   CREATE TRIGGER engine_journal_immutable
     BEFORE UPDATE ON engine_journal
     FOR EACH ROW EXECUTE FUNCTION engine_journal_immutable();

   CREATE FUNCTION engine_snapshot_guard() RETURNS trigger LANGUAGE plpgsql AS $guard$
   DECLARE
     leader_epoch bigint;
   BEGIN
     SELECT epoch INTO leader_epoch FROM engine_leader FOR SHARE;
     IF NEW.epoch <> leader_epoch THEN
       RAISE EXCEPTION USING ERRCODE = '${fencedSqlState}',
         MESSAGE = format('Fenced: snapshot from epoch %s, the leader epoch is %s', NEW.epoch, leader_epoch);
     END IF;
     IF NEW.sequence > 0 AND NOT EXISTS (SELECT 1 FROM engine_journal WHERE sequence = NEW.sequence) THEN
       RAISE EXCEPTION 'Snapshot at sequence % is ahead of the journal', NEW.sequence;
     END IF;
     RETURN NEW;
   END
   $guard$;

   CREATE TRIGGER engine_snapshot_guard
     BEFORE INSERT OR UPDATE ON engine_snapshots
     FOR EACH ROW EXECUTE FUNCTION engine_snapshot_guard();`,
  // The per-row epoch check cost a PL/pgSQL call for every journal row (about 5% of the backend's
  // CPU in bench:orders) for a check the statement's guard makes anyway, under the leader row's
  // lock. What it added was the error a stale leader gets when it repeats a sequence its successor
  // has written: the store now tells that case from the primary key's refusal (engine-store.ts).
  // And a journal row of up to 8 kB is kept whole in the table instead of being compressed with
  // pglz (a batch's events pass the 2 kB default once an order trades a few times): compressing cost
  // more CPU than the bytes it saves are worth, for rows that are archived and deleted.
  // Dropping a trigger locks the journal exclusively: against a live leader (the first node of the
  // new build to start applies it) it waits for the append in flight, and gives up after 5 s rather
  // than hold every append behind a transaction left open elsewhere; the node's start then fails
  // and its supervisor starts it again.
  `SET LOCAL lock_timeout = '5s';
   DROP TRIGGER engine_journal_epoch_check ON engine_journal;
   DROP FUNCTION engine_journal_epoch_check();
   ALTER TABLE engine_journal SET (toast_tuple_target = 8160);`,
  // 3. The journal as a hash chain (src/engine/journal-chain.ts): each entry's chain hash and the
  // one before it, and the chain hash at each snapshot's sequence. Rows written before stay NULL
  // (the chain starts at the first hashed entry). The guard also refuses a batch whose first entry
  // links to another chain hash than the journal holds before it: the database itself refuses an
  // append from a writer whose history has forked from the journal's. Adding a NULL column only
  // changes the catalogue, but it takes the journal's lock: as in 2, given up after 5 s.
  `SET LOCAL lock_timeout = '5s';
   ALTER TABLE engine_journal ADD COLUMN prev_hash text, ADD COLUMN hash text;
   ALTER TABLE engine_snapshots ADD COLUMN chain_hash text;

   CREATE OR REPLACE FUNCTION engine_journal_guard() RETURNS trigger LANGUAGE plpgsql AS $guard$
   DECLARE
     leader_epoch bigint;
     stale_epoch bigint;
     first_sequence bigint;
     last_sequence bigint;
     inserted_count bigint;
     predecessor_found boolean;
     predecessor_hash text;
     first_prev_hash text;
   BEGIN
     SELECT epoch INTO leader_epoch FROM engine_leader FOR SHARE;
     SELECT min(sequence), max(sequence), count(*), min(epoch) FILTER (WHERE epoch <> leader_epoch)
       INTO first_sequence, last_sequence, inserted_count, stale_epoch
       FROM inserted;
     IF inserted_count = 0 THEN
       RETURN NULL;
     END IF;
     IF stale_epoch IS NOT NULL THEN
       RAISE EXCEPTION USING ERRCODE = '${fencedSqlState}',
         MESSAGE = format('Fenced: journal append from epoch %s, the leader epoch is %s', stale_epoch, leader_epoch);
     END IF;
     -- The primary key refuses repeats; with no repeats, a contiguous batch whose predecessor exists
     -- continues the journal (which was contiguous before, by the same rule).
     IF first_sequence > 1 THEN
       SELECT true, hash INTO predecessor_found, predecessor_hash
         FROM engine_journal WHERE sequence = first_sequence - 1;
     END IF;
     IF last_sequence - first_sequence + 1 <> inserted_count
        OR (first_sequence > 1 AND predecessor_found IS NULL) THEN
       RAISE EXCEPTION USING ERRCODE = '${outOfOrderSqlState}',
         MESSAGE = format('Journal write out of order: sequences %s..%s (%s rows) do not continue the journal',
                          first_sequence, last_sequence, inserted_count);
     END IF;
     IF predecessor_hash IS NOT NULL THEN
       SELECT prev_hash INTO first_prev_hash FROM inserted WHERE sequence = first_sequence;
       IF first_prev_hash IS NOT NULL AND first_prev_hash <> predecessor_hash THEN
         RAISE EXCEPTION USING ERRCODE = '${outOfOrderSqlState}',
           MESSAGE = format('Journal write out of order: sequence %s links to another chain hash than the journal holds at %s',
                            first_sequence, first_sequence - 1);
       END IF;
     END IF;
     PERFORM pg_notify('${journalChannel}', last_sequence::text);
     RETURN NULL;
   END
   $guard$;`,
  // 4. The journal archive in the database (src/store/postgres/journal-archive.ts): one row per
  // segment (the archive's brotli JSON lines, sha256-checked), written in the same transaction as
  // the journal rows it holds are deleted, so every engine node, `predex journal verify` anywhere,
  // and a restored copy of the database have the whole history. Segments run from sequence 1
  // without a gap and are never rewritten (an operator may delete old ones to prune).
  `CREATE TABLE engine_journal_archive (
     first_sequence bigint PRIMARY KEY CHECK (first_sequence > 0),
     last_sequence bigint NOT NULL UNIQUE,
     entries integer NOT NULL,
     first_now_ms bigint NOT NULL,
     last_now_ms bigint NOT NULL,
     raw_bytes bigint NOT NULL,
     bytes bigint NOT NULL,
     sha256 text NOT NULL,
     -- The chain hash of the segment's last entry (journal-chain.ts), NULL before the chain.
     last_hash text,
     segment bytea NOT NULL,
     archived_at timestamptz NOT NULL DEFAULT now(),
     CHECK (last_sequence - first_sequence + 1 = entries)
   );
   -- Already compressed: kept out of line as it is, never pglz-compressed again.
   ALTER TABLE engine_journal_archive ALTER COLUMN segment SET STORAGE EXTERNAL;

   CREATE FUNCTION engine_journal_archive_guard() RETURNS trigger LANGUAGE plpgsql AS $archive$
   DECLARE
     archived_through bigint;
   BEGIN
     IF TG_OP = 'UPDATE' THEN
       RAISE EXCEPTION 'The engine journal archive is append-only';
     END IF;
     SELECT coalesce(max(last_sequence), 0) INTO archived_through FROM engine_journal_archive;
     IF NEW.first_sequence <> archived_through + 1 THEN
       RAISE EXCEPTION USING ERRCODE = '${outOfOrderSqlState}',
         MESSAGE = format('Journal archive segment %s..%s does not continue the archive, which ends at %s',
                          NEW.first_sequence, NEW.last_sequence, archived_through);
     END IF;
     RETURN NEW;
   END
   $archive$;

   CREATE TRIGGER engine_journal_archive_guard
     BEFORE INSERT OR UPDATE ON engine_journal_archive
     FOR EACH ROW EXECUTE FUNCTION engine_journal_archive_guard();`,
];
