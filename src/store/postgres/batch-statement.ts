// A batch written as one statement. On PostgreSQL the engine's commit is a chain of round trips
// (BEGIN, the journal append, each projector's writes, COMMIT), and on a busy API process each of
// them waits for the event loop to come back to its socket: in bench:orders a batch of 26 orders
// took 12 ms to commit for 4 ms of work in the database. The common batch (orders, trades,
// cancellations, deposits) is instead written by ONE statement, a chain of data-modifying CTEs
// that PostgreSQL runs atomically as its own transaction: the journal rows and every read model, or
// nothing. Batches with rarer events (a market created, settled, a withdrawal) keep the
// transaction of statements, since their projection reads what it wrote earlier in the batch.
//
// A projector takes part by carrying a BatchStatementWriter (the `oneStatement` rider below). It
// prepares before the statement is sent: it may read (outside any transaction, which is safe
// because the engine is the only writer of these tables and the reads run after the batches before
// have committed), then
// projects in memory and returns its CTEs. The store may send the next batch's statement before this
// one's answer (pipelined, engine-store.ts): a projector's kept state moves on when it prepares, and
// `committed` only hands it what the statement returned.

import { createHash } from "node:crypto";
import type { JournalEntry } from "../../engine/store.js";
import { type ArrayParameterTypes, arrayParameterTypes, encodeArrayParameters } from "./binary-arrays.js";
import type { PostgresClient, PostgresPool } from "./database.js";

/** Part of a batch's statement: CTEs and their parameters, numbered from $1 within the part. */
export interface StatementPart {
  /** `name AS (…)` CTEs, comma-separated; the names must be unique across every part of a batch. */
  readonly ctes: string;
  readonly values: readonly unknown[];
  /**
   * Scalar expressions the statement selects (a CTE that only SELECTs runs only when read, e.g. one
   * that sends NOTIFY; or what a CTE's RETURNING gave). Their values are handed to `committed`.
   */
  readonly selects?: readonly string[];
}

export interface PreparedPart {
  /** Undefined when this projector writes nothing for the batch. */
  readonly part: StatementPart | undefined;
  /**
   * Called once the statement has committed, with the values of the part's `selects`, in order.
   * Must not throw: the batch is durable by then, and a throw would fail it to the engine.
   */
  committed(selected: readonly unknown[]): void;
}

export interface BatchStatementWriter<Command, Event> {
  /** Whether this batch's writes can all be CTEs of one statement. Must not change anything. */
  writesInOneStatement(entries: readonly JournalEntry<Command, Event>[]): boolean;
  /**
   * Reads what it needs with `reader`, projects the batch in memory, and returns its part. The
   * reads run after every batch before has committed (the store sends them behind those batches).
   * What it keeps in memory counts as written from here: a statement that then fails stops the
   * engine, and no batch behind it can land.
   */
  prepare(
    reader: PostgresClient | PostgresPool,
    entries: readonly JournalEntry<Command, Event>[],
  ): Promise<PreparedPart>;
}

/** What a projector that can be a part of the batch's statement carries. */
export interface OneStatementRider<Command, Event> {
  readonly oneStatement: BatchStatementWriter<Command, Event>;
}

export function oneStatementWriterOf<Command, Event>(
  projector: unknown,
): BatchStatementWriter<Command, Event> | undefined {
  return (projector as Partial<OneStatementRider<Command, Event>>).oneStatement;
}

/** `$n` parameter references in a part's SQL (its texts hold no string literal with a `$`). */
const parameterReference = /\$(\d+)/g;

/** The parts as one: each part's parameters renumbered to follow those of the parts before it. */
export function joinParts(parts: readonly StatementPart[]): Required<StatementPart> {
  const ctes: string[] = [];
  const values: unknown[] = [];
  const selects: string[] = [];
  for (const part of parts) {
    const offset = values.length;
    const shift = (sql: string) =>
      offset === 0 ? sql : sql.replace(parameterReference, (_, n: string) => `$${Number(n) + offset}`);
    ctes.push(shift(part.ctes));
    values.push(...part.values);
    for (const select of part.selects ?? []) selects.push(shift(select));
  }
  return { ctes: ctes.join(",\n"), values, selects };
}

/**
 * What is known of each statement text seen: which parameters are arrays of which type, and, once
 * the text is prepared, its name. A named statement is parsed and analysed once per connection
 * instead of on every batch; the engine's connections still plan each execution for its parameters
 * (customPlansOnly in database.ts), which is the only way the store names them (engine-store.ts).
 * A prepared text costs its connection's backend about 140 kB; the texts are which parts a batch
 * has (which tables it writes, forward ids, the catalogue's heat, commissions): some tens, 45 over
 * the test suite. Past the bound a text goes unnamed and is parsed each time, so no mix of batches
 * can fill the server's memory with prepared statements.
 */
interface StatementText {
  readonly name: string | undefined;
  readonly arrays: ArrayParameterTypes;
}
const statementTexts = new Map<string, StatementText>();
export const namedStatementTextsMax = 64;

function statementTextOf(text: string): StatementText {
  const known = statementTexts.get(text);
  if (known !== undefined) return known;
  if (statementTexts.size >= namedStatementTextsMax)
    return { name: undefined, arrays: arrayParameterTypes(text) };
  const name = `predex-batch-${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
  const seen = { name, arrays: arrayParameterTypes(text) };
  statementTexts.set(text, seen);
  return seen;
}

/**
 * The statement of the joined parts; its one row holds the selects as s0, s1, … Its array parameters
 * go in binary format (binary-arrays.ts): the columns of every row the batch writes. `prepared`
 * names it (see statementTexts).
 */
export function statementOf(
  part: Required<StatementPart>,
  options: { readonly prepared?: boolean } = {},
): { text: string; values: unknown[]; name?: string } {
  const selected =
    part.selects.length === 0 ? "1" : part.selects.map((sql, i) => `${sql} AS s${i}`).join(", ");
  const text = `WITH ${part.ctes}\nSELECT ${selected}`;
  const { name, arrays } = statementTextOf(text);
  const values = encodeArrayParameters(arrays, part.values);
  return options.prepared === true && name !== undefined ? { text, values, name } : { text, values };
}

/**
 * Several prepared parts as one (a projector made of projectors): the parts joined in order, and
 * each one's `committed` given its own slice of the selected values.
 */
export function joinPrepared(prepared: readonly PreparedPart[]): PreparedPart {
  const parts = prepared.flatMap((one) => (one.part === undefined ? [] : [one.part]));
  return {
    part: parts.length === 0 ? undefined : joinParts(parts),
    committed(selected) {
      let next = 0;
      for (const one of prepared) {
        const count = one.part?.selects?.length ?? 0;
        one.committed(selected.slice(next, next + count));
        next += count;
      }
    },
  };
}

/** The writer of projectors that run one after the other, when every one of them has a writer. */
export function writerOfAll<Command, Event>(
  projectors: readonly unknown[],
): BatchStatementWriter<Command, Event> | undefined {
  const writers = projectors.map((projector) => oneStatementWriterOf<Command, Event>(projector));
  if (writers.some((writer) => writer === undefined)) return undefined;
  const all = writers as BatchStatementWriter<Command, Event>[];
  return {
    writesInOneStatement: (entries) => all.every((writer) => writer.writesInOneStatement(entries)),
    async prepare(reader, entries) {
      const prepared: PreparedPart[] = [];
      for (const writer of all) prepared.push(await writer.prepare(reader, entries));
      return joinPrepared(prepared);
    },
  };
}
