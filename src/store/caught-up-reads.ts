// Read-your-writes over read models projected behind the journal (src/engine/deferred-projection.ts):
// a store whose tables a projector writes is handed out wrapped, so every call first brings the
// read models up to the last committed command. A command acknowledged before the call is then in
// what the call reads, as when the read models were written in the command's own transaction.

/**
 * The same store, each of its methods (or only those named in `only`) calling `catchUp` first
 * (synchronously, so a synchronous method stays synchronous). Methods are found on the object and its
 * prototypes and called on the original, so classes with private fields work; other properties are
 * read through.
 */
export function withCaughtUpReads<Store extends object>(
  store: Store,
  catchUp: () => void,
  only?: readonly (keyof Store & string)[],
): Store {
  return wrapMethods(
    store,
    (method) => {
      // An async method's caller expects a rejection, not a throw.
      const isAsync = method.constructor.name === "AsyncFunction";
      return (...args) => {
        try {
          catchUp();
        } catch (error) {
          if (isAsync) return Promise.reject(error);
          throw error;
        }
        return method.apply(store, args);
      };
    },
    only,
  );
}

/**
 * The same store, each method waiting first for `wait()` (when it returns a Promise): the
 * asynchronous twin of withCaughtUpReads, for stores whose read models another process or a later
 * turn brings up to date (PostgreSQL's, src/store/postgres/read-model-projection.ts). Every method
 * of the ports wrapped so returns a Promise, so one that waits first still answers with a Promise.
 */
export function withAwaitedReads<Store extends object>(
  store: Store,
  wait: () => Promise<void> | undefined,
  only?: readonly (keyof Store & string)[],
): Store {
  return wrapMethods(
    store,
    (method) =>
      (...args) => {
        const waiting = wait();
        return waiting === undefined
          ? method.apply(store, args)
          : waiting.then(() => method.apply(store, args));
      },
    only,
  );
}

type Method = (...args: unknown[]) => unknown;

/**
 * A view of `store` whose methods (those in `only`, or all) are `wrap(method)`, the others called
 * on the original as they are; methods come from the object and its prototypes, other properties
 * are read through.
 */
function wrapMethods<Store extends object>(
  store: Store,
  wrap: (method: Method) => Method,
  only: readonly (keyof Store & string)[] | undefined,
): Store {
  const wrapped: Record<PropertyKey, unknown> = {};
  const seen = new Set<PropertyKey>();
  for (
    let layer: object | null = store;
    layer !== null && layer !== Object.prototype;
    layer = Object.getPrototypeOf(layer) as object | null
  ) {
    for (const key of Reflect.ownKeys(layer)) {
      if (key === "constructor" || seen.has(key)) continue;
      seen.add(key);
      const descriptor = Object.getOwnPropertyDescriptor(layer, key)!;
      if (typeof descriptor.value !== "function") {
        Object.defineProperty(wrapped, key, {
          enumerable: descriptor.enumerable ?? true,
          get: () => Reflect.get(store, key),
        });
        continue;
      }
      const method = descriptor.value as Method;
      const wraps = only === undefined || only.includes(key as never);
      wrapped[key] = wraps ? wrap(method) : (...args: unknown[]) => method.apply(store, args);
    }
  }
  return wrapped as Store;
}
