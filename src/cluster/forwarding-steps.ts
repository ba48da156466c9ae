// What an API node does next with a forwarded command, decided from what it has seen so far and
// nothing else: no I/O, no clock of its own (the time is an input), so every rule of
// forwarding-engine.ts's header can be checked with every combination of inputs
// (test/cluster/forwarding-steps.test.ts). The engine performs the step (reads the leader, sends,
// asks the journal, waits) and feeds back what it saw.
//
// The rules, across a takeover (a command is never applied twice, an acknowledged one never lost):
// - a leader that did not take the command (refused, not leading, stopped) may be sent it again;
// - one that may have taken it without answering (a lost answer) is asked again with the same id by
//   the same epoch only; once a later epoch leads, every append of the older epochs is final, so the
//   journal says whether it was committed: there, its entry is the answer; missing, it never will
//   be, and it goes to the new leader;
// - at the deadline the verdict is what is known (verdictAtDeadline).

/** What one attempt at the leader came back with (the answer itself stays with the engine). */
export type AttemptOutcome =
  | "answered"
  /** The leader's queue was full: it took nothing. */
  | "overloaded"
  /** The leader did not take the command: sending it again cannot run it twice. */
  | "not-taken"
  /** The leader may have taken it: only the same id, or the journal, can say. */
  | "unknown";

/** What the journal said of the command's forward id. */
export type JournalWord = "committed" | "missing" | "lookup failed";

/** What is known of the command between steps. */
export interface ForwardingProgress {
  /** Passes made (each looks the leader up once); the backoff grows with it. */
  readonly pass: number;
  /** The highest epoch that may hold the command without having answered. */
  readonly unsettledEpoch: bigint | undefined;
}

export const startOfForwarding: ForwardingProgress = { pass: 0, unsettledEpoch: undefined };

/** What the engine saw since the last step. */
export type Seen =
  /** The leader directory's answer (undefined: no leader, or it could not be read). */
  | { readonly kind: "leader"; readonly epoch: bigint | undefined }
  /** The journal's word, asked while a leader of `epoch` leads. */
  | { readonly kind: "journal"; readonly epoch: bigint; readonly word: JournalWord }
  /** An attempt at the leader of `epoch`. */
  | { readonly kind: "attempt"; readonly epoch: bigint; readonly outcome: AttemptOutcome };

/** The moment a step is decided at. */
export interface ForwardingMoment {
  readonly nowMs: number;
  /** When the command's wait for a leader ends (failoverDeadlineMs after it was submitted). */
  readonly deadlineMs: number;
  /** False once the node is closing or failed: no further pass is made. */
  readonly running: boolean;
  /** Part of a group is already answered from the journal: "nothing was done" can no longer be said. */
  readonly partlySettled: boolean;
}

export type ForwardingStep =
  /** Send the command to the leader just read (the same id as before). */
  | { readonly kind: "send" }
  /** Ask the journal whether the command was committed (a later epoch leads than the unsettled one). */
  | { readonly kind: "ask journal" }
  /** The answer is in hand (from the leader or the journal). */
  | { readonly kind: "done" }
  /** Nothing was taken and nothing may still commit: the leader's queue is full. */
  | { readonly kind: "overloaded" }
  /** Wait, then read the leader afresh and make another pass. */
  | { readonly kind: "retry"; readonly waitMs: number }
  /** The deadline passed (or the node stops): the verdict is what is known (verdictAtDeadline). */
  | { readonly kind: "give up" };

export interface Decision {
  readonly progress: ForwardingProgress;
  readonly step: ForwardingStep;
}

/** The wait before pass `pass + 1`: 20 ms doubling to 250 ms. */
export function retryWaitMs(pass: number): number {
  return Math.min(20 * 2 ** Math.min(pass, 4), 250);
}

/** The next step after `seen`, from what was known before it. */
export function nextStep(progress: ForwardingProgress, seen: Seen, moment: ForwardingMoment): Decision {
  switch (seen.kind) {
    case "leader":
      return afterLeader(progress, seen.epoch, moment);
    case "journal":
      if (seen.word === "committed") return { progress, step: { kind: "done" } };
      // Missing while a later epoch leads: it never will be committed, so it may be sent again.
      if (seen.word === "missing")
        return { progress: { ...progress, unsettledEpoch: undefined }, step: { kind: "send" } };
      // Not known yet: nothing is sent, the journal is asked again on the next pass.
      return endOfPass(progress, moment);
    case "attempt":
      return afterAttempt(progress, seen.epoch, seen.outcome, moment);
  }
}

function afterLeader(
  progress: ForwardingProgress,
  epoch: bigint | undefined,
  moment: ForwardingMoment,
): Decision {
  if (epoch === undefined) return endOfPass(progress, moment);
  const unsettled = progress.unsettledEpoch;
  if (unsettled === undefined || epoch === unsettled) return { progress, step: { kind: "send" } };
  // Every append of the older epochs is final now: the journal says whether it was committed.
  if (epoch > unsettled) return { progress, step: { kind: "ask journal" } };
  // A leader older than one that may hold the command (a stale read): nothing is sent to it.
  return endOfPass(progress, moment);
}

function afterAttempt(
  progress: ForwardingProgress,
  epoch: bigint,
  outcome: AttemptOutcome,
  moment: ForwardingMoment,
): Decision {
  if (outcome === "answered") return { progress, step: { kind: "done" } };
  // A full queue took nothing; unless an earlier attempt may still commit (or part of a group
  // already did), nothing was done.
  if (outcome === "overloaded" && progress.unsettledEpoch === undefined && !moment.partlySettled) {
    return { progress, step: { kind: "overloaded" } };
  }
  const next = outcome === "unknown" ? { ...progress, unsettledEpoch: epoch } : progress;
  return endOfPass(next, moment);
}

function endOfPass(progress: ForwardingProgress, moment: ForwardingMoment): Decision {
  if (moment.nowMs >= moment.deadlineMs || !moment.running) return { progress, step: { kind: "give up" } };
  return {
    progress: { ...progress, pass: progress.pass + 1 },
    step: { kind: "retry", waitMs: Math.min(retryWaitMs(progress.pass), moment.deadlineMs - moment.nowMs) },
  };
}

/** What is said of a command given up at the deadline. */
export type Verdict =
  /** No leader may hold it: nothing was done (the surfaces' 502/2002, try again later). */
  | { readonly kind: "nothing done" }
  /** A leader took it and its epoch may still commit it, or the journal could not say (504/2001). */
  | { readonly kind: "unknown"; readonly why: "may still commit" | "partly committed" };

/**
 * The verdict at the deadline. A command that a leader of `unsettledEpoch` took without answering
 * was looked up in the journal once more (`journal`, after reading the leader's epoch, so a miss
 * proves "never" only if a later epoch led first); found there, the engine answers from it and
 * asks for no verdict. A group part of which was committed and the rest not is never "nothing was
 * done": that would be a lie.
 */
export function verdictAtDeadline(known: {
  readonly unsettledEpoch: bigint | undefined;
  /** The leader's epoch read at the deadline (undefined: none, or unreadable). */
  readonly leaderEpoch: bigint | undefined;
  /** The journal's word at the deadline; ignored when nothing is unsettled. */
  readonly journal: Exclude<JournalWord, "committed"> | undefined;
  readonly partlySettled: boolean;
}): Verdict {
  const { unsettledEpoch, leaderEpoch } = known;
  if (unsettledEpoch !== undefined) {
    const provenMissing =
      known.journal === "missing" && leaderEpoch !== undefined && leaderEpoch > unsettledEpoch;
    if (!provenMissing) return { kind: "unknown", why: "may still commit" };
  }
  if (known.partlySettled) return { kind: "unknown", why: "partly committed" };
  return { kind: "nothing done" };
}
