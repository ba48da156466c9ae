// A `predex` CLI process for the multi-process topology tests, started as an operator starts one:
// bin/predex.js, which runs the compiled build (dist/, made by `npm ci`) when it is fresh and the
// sources through tsx otherwise (saying so on stderr). Its stdout lines are kept, and a test waits
// for a line matching a pattern. Signals go to this child's PID only.

import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

const predexCommand = new URL("../../bin/predex.js", import.meta.url).pathname;

export class CliNode {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  #waiters: (() => void)[] = [];

  private constructor(readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      this.lines.push(line);
      for (const waiter of this.#waiters.splice(0)) waiter();
    });
    child.on("exit", () => {
      for (const waiter of this.#waiters.splice(0)) waiter();
    });
  }

  /**
   * `entry`: another source tree's src/cli/main.ts, run through tsx (a benchmark's baseline build);
   * default this checkout's bin/predex.js.
   */
  static start(
    args: readonly string[],
    env: Readonly<Record<string, string>>,
    options: { readonly entry?: string } = {},
  ): CliNode {
    return new CliNode(
      spawn(
        process.execPath,
        options.entry === undefined ? [predexCommand, ...args] : ["--import", "tsx", options.entry, ...args],
        {
          env: { ...process.env, ...env },
          stdio: ["ignore", "pipe", "inherit"],
        },
      ),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first line matching `pattern` (its match), waiting up to timeoutMs. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const line of this.lines) {
        const match = pattern.exec(line);
        if (match !== null) return match;
      }
      const left = deadline - Date.now();
      if (left <= 0 || !this.running) {
        throw new Error(
          `no line matching ${pattern} (${this.running ? "timeout" : "exited"}): ${this.lines.join(" | ")}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1_000));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  kill(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }
}
