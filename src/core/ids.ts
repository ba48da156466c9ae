// Ids in commands: the core issues them from its counters (state.ts), so a valid one is a positive
// safe integer. Every decide checks the ids a command names with this before looking them up.

export function isId(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}
