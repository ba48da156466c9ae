// How a read-model step's statements are planned on PostgreSQL (issue #31). A step projects tens of
// entries with one large statement (a chain of data-modifying CTEs, exchange-projector.ts); planning
// it for its parameters cost about 1 ms of the server's CPU every step, a fifth of the projection's
// CPU at 64 entries a step. Inside a step the statement is therefore prepared (named) and planned
// once per connection, generically, and the planner may join only by index probes: with sequential
// scans, hash and merge joins off for the step's transaction, the one plan probes each row's key
// whatever the tables held when it was made (a generic plan made while exchange_orders was small
// would otherwise keep scanning the whole table as it grows: docs/decisions.md, "The batch
// statement: binary arrays, prepared once, planned each time"). Every statement a step runs reads
// or writes by a key some index has, so no plan loses by it.
//
// The settings are SET LOCAL: they end with the step's transaction and never reach the engine's
// commits on the same pooled connections. A projector asks plansOnceInStep(client) before it names
// a statement whose plan would otherwise depend on its parameters.

/** The step transaction's planner settings (a part of the step's opening text). */
export const stepPlanningSql = `SET LOCAL plan_cache_mode = force_generic_plan;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off`;

/** Connections inside a step's transaction now, with stepPlanningSql applied. */
const inStep = new WeakSet<object>();

/** The connection runs a step's transaction from here until stepEnded. */
export function stepStarted(client: object): void {
  inStep.add(client);
}

export function stepEnded(client: object): void {
  inStep.delete(client);
}

/** Whether `client` plans as stepPlanningSql says: a named statement is planned once, by index probes. */
export function plansOnceInStep(client: object): boolean {
  return inStep.has(client);
}
