// A better-sqlite3 handle that loses power at a chosen write. Everything the exchange writes goes
// through statements prepared on this handle (the journal, the snapshots, every read model), so
// counting `Statement.run` and the transactions' COMMITs counts every write boundary of a commit.
// At the chosen one the handle "powers off": it throws, so the open transaction rolls back exactly
// as SQLite discards an uncommitted transaction after a power cut, and every later call throws too,
// as a dead process writes nothing more. A COMMIT that completed and then lost power is the other
// half: the data is durable but nobody heard about it (the acknowledgement is lost).
//
// What SQLite itself does on a torn write (its rollback journal / WAL recovery) is SQLite's own,
// exhaustively tested crash safety; this wrapper simulates the process dying at every point where
// predex's code hands SQLite a write, which is where predex's own ordering mistakes would show.

import type { SqliteDatabase } from "../../src/store/sqlite/database.js";

export class PowerCut extends Error {
  constructor(readonly writeNumber: number) {
    super(`power cut at write ${writeNumber}`);
    this.name = "PowerCut";
  }
}

export interface PowerCutSwitch {
  /** Write boundaries passed so far (statement runs and completed COMMITs). */
  readonly writes: number;
  /** True once the power is off. */
  readonly off: boolean;
  /** Cuts the power when write boundary `writeNumber` is reached (counting from this handle's first). */
  cutAt(writeNumber: number | undefined): void;
  /** A write outside the database (a file) about to happen: a boundary like any other. */
  write(): void;
}

type AnyFunction = (...args: unknown[]) => unknown;

/**
 * Wraps `db`: the returned handle behaves like it until the power goes off. Statements must be
 * prepared on the returned handle (so every projector and store must be built from it).
 */
export function withPowerCut(db: SqliteDatabase): { db: SqliteDatabase; power: PowerCutSwitch } {
  let writes = 0;
  let off = false;
  let cutAtWrite: number | undefined;
  const boundary = (): void => {
    if (off) throw new PowerCut(writes);
    writes += 1;
    if (cutAtWrite !== undefined && writes >= cutAtWrite) {
      off = true;
      throw new PowerCut(writes);
    }
  };
  const alive = (): void => {
    if (off) throw new PowerCut(writes);
  };

  const wrapStatement = (statement: object): object => {
    const proxy: object = new Proxy(statement, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== "function") return value;
        const method = value as AnyFunction;
        return (...args: unknown[]) => {
          if (property === "run") boundary();
          else alive();
          const result = method.apply(target, args);
          // pluck(), safeIntegers(), raw() … return the statement itself: keep handing out the proxy.
          return result === target ? proxy : result;
        };
      },
    });
    return proxy;
  };

  const wrapTransaction = (transaction: AnyFunction & Record<string, AnyFunction>): AnyFunction => {
    const run =
      (variant: AnyFunction) =>
      (...args: unknown[]) => {
        alive();
        const result = variant(...args);
        // The COMMIT went through: a power cut now loses only the answer.
        boundary();
        return result;
      };
    const wrapped = run(transaction) as AnyFunction & Record<string, AnyFunction>;
    for (const name of ["deferred", "immediate", "exclusive"]) wrapped[name] = run(transaction[name]!);
    return wrapped;
  };

  const proxy = new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      const method = value as AnyFunction;
      if (property === "prepare") {
        return (...args: unknown[]) => {
          alive();
          return wrapStatement(method.apply(target, args) as object);
        };
      }
      if (property === "transaction") {
        return (fn: AnyFunction) =>
          wrapTransaction(method.call(target, fn) as AnyFunction & Record<string, AnyFunction>);
      }
      if (property === "exec") {
        return (...args: unknown[]) => {
          boundary();
          return method.apply(target, args);
        };
      }
      if (property === "close") return (...args: unknown[]) => method.apply(target, args);
      return (...args: unknown[]) => {
        alive();
        return method.apply(target, args);
      };
    },
  });
  return {
    db: proxy,
    power: {
      get writes() {
        return writes;
      },
      get off() {
        return off;
      },
      cutAt(writeNumber) {
        cutAtWrite = writeNumber;
      },
      write: boundary,
    },
  };
}
