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
      if (typeof descriptor.value === "function" && only !== undefined && !only.includes(key as never)) {
        const method = descriptor.value as (...args: unknown[]) => unknown;
        wrapped[key] = (...args: unknown[]) => method.apply(store, args);
      } else if (typeof descriptor.value === "function") {
        const method = descriptor.value as (...args: unknown[]) => unknown;
        const isAsync = method.constructor.name === "AsyncFunction";
        wrapped[key] = (...args: unknown[]) => {
          try {
            catchUp();
          } catch (error) {
            // An async method's caller expects a rejection, not a throw.
            if (isAsync) return Promise.reject(error);
            throw error;
          }
          return method.apply(store, args);
        };
      } else {
        Object.defineProperty(wrapped, key, {
          enumerable: descriptor.enumerable ?? true,
          get: () => Reflect.get(store, key),
        });
      }
    }
  }
  return wrapped as Store;
}
