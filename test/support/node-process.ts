// A child engine node (test/support/postgres-engine-node.ts) and the JSON lines it prints, for the
// tests that SIGSTOP, SIGCONT and SIGKILL a leader process.

import { type ChildProcess, spawn } from "node:child_process";
import { createInterface, type Interface } from "node:readline";

const nodeScript = new URL("./postgres-engine-node.ts", import.meta.url).pathname;

/** A child engine node and its JSON lines. */
export class NodeProcess {
  readonly messages: Record<string, unknown>[] = [];
  /** Messages seen per `event`. */
  readonly #counts = new Map<string, number>();
  readonly exited: Promise<number | null>;
  readonly #lines: Interface;
  #waiters: (() => void)[] = [];

  constructor(readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    this.#lines = createInterface({ input: child.stdout! });
    this.#lines.on("line", (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      this.messages.push(message);
      const event = String(message.event);
      this.#counts.set(event, (this.#counts.get(event) ?? 0) + 1);
      for (const waiter of this.#waiters.splice(0)) waiter();
    });
  }

  static start(args: string[]): NodeProcess {
    return new NodeProcess(
      spawn(process.execPath, ["--import", "tsx", nodeScript, ...args], {
        stdio: ["pipe", "pipe", "inherit"],
      }),
    );
  }

  send(message: Record<string, unknown>): void {
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  /** The first message (from `from` on) matching, waiting up to timeoutMs for it. */
  async next(
    predicate: (message: Record<string, unknown>) => boolean,
    timeoutMs = 20_000,
    from = 0,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(predicate);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  count(event: string): number {
    return this.#counts.get(event) ?? 0;
  }

  /** Waits until `condition` holds, checking after each message. */
  async until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`condition not met; last messages ${JSON.stringify(this.messages.slice(-5))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  kill(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }
}
