// Why the engine refuses to take a command at all, or cannot say what became of it. These are not
// domain rejections (those come back as values in a SubmitResult). Overloaded and stopped say that
// nothing was done, so a surface answers "try again later"; an unknown outcome says the command may
// or may not have been applied, so a surface says so (spec 000: 504/2001, reconcile before retrying).

/** A bounded queue is full: the caller should back off and retry. Nothing was changed. */
export class EngineOverloadedError extends Error {
  readonly code = "ENGINE_OVERLOADED";
  constructor(
    readonly limitName: string,
    readonly limit: number,
  ) {
    super(`The engine is overloaded (${limitName} = ${limit}); retry later`);
    this.name = "EngineOverloadedError";
  }
}

/** The engine was closed, or stopped after a fatal error; it will not take any more commands. */
export class EngineStoppedError extends Error {
  readonly code = "ENGINE_STOPPED";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EngineStoppedError";
  }
}

/**
 * The command was handed to the engine and no answer came that says whether it was applied: a
 * leader that stopped answering while it may still commit (stuck on its database, paused), a commit
 * whose connection broke. Sending it again may apply it twice, unless it carries an idempotency key
 * (a clientOrderId); the caller reconciles first. The message says what is known.
 */
export class EngineOutcomeUnknownError extends Error {
  readonly code = "ENGINE_OUTCOME_UNKNOWN";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EngineOutcomeUnknownError";
  }
}

/**
 * A store write failed or the core broke an invariant: memory may be ahead of disk, so the engine
 * stops for good. `origin` says which: "store" (a commit failed or its outcome is unknown: the
 * store's journal is still the truth, and a host may rebuild from it and go on) or "core" (deciding
 * or applying a command threw: a broken invariant or a programmer error, and the host should exit).
 * A command that meets it was in the batch being written: it may or may not be in the journal (an
 * unknown outcome, like EngineOutcomeUnknownError); commands that had not reached the store meet
 * EngineStoppedError.
 */
export class EngineFatalError extends Error {
  readonly code = "ENGINE_FATAL";
  readonly origin: "store" | "core";
  constructor(message: string, options: { cause: unknown; origin?: "store" | "core" }) {
    super(message, { cause: options.cause });
    this.name = "EngineFatalError";
    this.origin = options.origin ?? "core";
  }
}

/** The journal or a snapshot contradicts itself; recovery refuses to guess. */
export class JournalCorruptionError extends Error {
  readonly code = "JOURNAL_CORRUPT";
  constructor(message: string) {
    super(message);
    this.name = "JournalCorruptionError";
  }
}

/** Throws when an invariant does not hold: a programmer error, never a user's. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Assertion failed: ${message}`);
}
