// Submits time-driven commands (expire GTD orders, open or close markets, end challenge windows).
// What to do is derived from committed state and the time on every tick, never remembered, so a
// restart neither skips nor repeats anything: a missed deadline is simply due on the first tick.
// The decider must re-check every scheduled command against its own nowMs, because state can move
// between the tick's read and the command's turn; a rejection then just means "already done".

import type { Rejection } from "../core/errors.js";
import type { StatePosition, SubmitResult } from "./engine.js";
import { assert } from "./errors.js";

/** What the scheduler needs from the engine (an Engine satisfies it). */
export interface SchedulerEngine<State, Command, Event> {
  read<T>(reader: (state: Readonly<State>, position: StatePosition) => T): Promise<T>;
  submit(command: Command): Promise<SubmitResult<Event>>;
}

export interface SchedulerOptions<State, Command, Event> {
  readonly engine: SchedulerEngine<State, Command, Event>;
  /** The commands due at `nowMs`, at most `limit` of them (the rest come on the next tick). */
  readonly due: (state: Readonly<State>, nowMs: number, limit: number) => readonly Command[];
  readonly intervalMs?: number;
  /** Commands submitted per tick; the next tick picks up what is left. */
  readonly commandsPerTickMax?: number;
  /** Milliseconds since the Unix epoch; the same clock the engine uses. */
  readonly clock?: () => number;
  /** A due command the decider refused (usually because it was already done). */
  readonly onRejected?: (command: Command, rejection: Rejection) => void;
  /** The engine refused work (overloaded, stopped) or `due` threw; the scheduler keeps ticking. */
  readonly onError?: (error: unknown) => void;
}

export const defaultSchedulerIntervalMs = 1_000;
export const defaultSchedulerCommandsPerTickMax = 1_000;

export interface Scheduler {
  /** Runs one tick now (tests call this instead of waiting); resolves when its commands are answered. */
  tick(): Promise<void>;
  /** Stops the timer and waits for the tick in progress, if any. */
  stop(): Promise<void>;
}

/** Starts ticking every intervalMs; ticks never overlap. */
export function startScheduler<State, Command, Event>(
  options: SchedulerOptions<State, Command, Event>,
): Scheduler {
  const intervalMs = options.intervalMs ?? defaultSchedulerIntervalMs;
  const commandsPerTickMax = options.commandsPerTickMax ?? defaultSchedulerCommandsPerTickMax;
  const clock = options.clock ?? Date.now;
  const onError = options.onError ?? ((error: unknown) => console.error("scheduler error", error));
  assert(Number.isSafeInteger(intervalMs) && intervalMs > 0, "scheduler intervalMs is a positive integer");
  assert(
    Number.isSafeInteger(commandsPerTickMax) && commandsPerTickMax > 0,
    "scheduler commandsPerTickMax is a positive integer",
  );

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function runTick(): Promise<void> {
    const commands = await options.engine.read((state, position) => {
      // Never ask about a time before the last commit: the engine would not decide at that time.
      const nowMs = Math.max(clock(), position.nowMs);
      return options.due(state, nowMs, commandsPerTickMax).slice(0, commandsPerTickMax);
    });
    const results = await Promise.allSettled(commands.map((command) => options.engine.submit(command)));
    results.forEach((result, index) => {
      if (result.status === "rejected") onError(result.reason);
      else if (!result.value.ok) options.onRejected?.(commands[index]!, result.value.rejection);
    });
  }

  function tick(): Promise<void> {
    // A tick still waiting for its commits is not doubled: that is what keeps the scheduler bounded.
    if (running !== undefined) return running;
    running = runTick()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void tick().finally(schedule);
    }, intervalMs);
    // The scheduler alone should not keep a process alive that is otherwise done.
    timer.unref();
  }

  schedule();
  return {
    tick,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
