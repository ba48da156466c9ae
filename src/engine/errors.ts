// Why the engine refuses to take a command at all. These are not domain rejections (those come back
// as values in a SubmitResult); they say the engine cannot take work now, so a surface maps them to
// "try again later" (overloaded) or "service unavailable" (stopped).

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
 * A store write failed or the core broke an invariant: memory may be ahead of disk, so the engine
 * stops for good and the host should exit and recover from the journal.
 */
export class EngineFatalError extends Error {
  readonly code = "ENGINE_FATAL";
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = "EngineFatalError";
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
