// Where a CPU profile's busy time goes, by part of the order path. A V8 `.cpuprofile` (written by
// BENCH_CPU_PROF, see server-process.ts) is a tree of frames and a list of samples; each busy
// sample is given to the innermost frame on its stack that a rule names (a frame of the nonce store
// called from the signature check counts as the nonce's), so the shares add up to 100% and a part's
// share is what removing that part would save.

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
}

export interface CpuProfile {
  readonly nodes: readonly { id: number; callFrame: CallFrame; children?: readonly number[] }[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/**
 * A part of the path and the frames that belong to it (tested against "functionName url"). An
 * owner claims every sample with one of its frames anywhere on the stack (the nonce store's commit
 * runs inside better-sqlite3, a socket write of the realtime hub inside node:net: both are the
 * owner's cost); any other part claims a sample by its innermost named frame.
 */
export interface ShareRule {
  readonly part: string;
  readonly frame: RegExp;
  readonly owner?: boolean;
}

/** The order path's parts: owners first, then the rest, each list most specific first. */
export const orderPathRules: readonly ShareRule[] = [
  { part: "nonce (its commit included)", frame: /gateway-nonces/, owner: true },
  {
    part: "read models (projection steps)",
    frame:
      /src\/store\/(sqlite\/projection\/|sqlite\/[a-z-]*projection|postgres\/exchange-projector|postgres\/read-model-projection|[a-z/]*user-history|[a-z/]*merchant-commissions)/,
    owner: true,
  },
  { part: "realtime fan-out", frame: /src\/realtime\//, owner: true },
  { part: "snapshot hand-off", frame: /src\/[a-z/]*snapshot/, owner: true },
  { part: "metrics", frame: /src\/[a-z/]*metrics|prom-client/, owner: true },
  { part: "logging", frame: /pino|sonic-boom/, owner: true },
  { part: "garbage collection", frame: /^\(garbage collector\) / },
  { part: "signature", frame: /src\/gateway\/|contract\/signing/ },
  { part: "session", frame: /src\/identity\/|session/ },
  { part: "rate limit", frame: /rate-limit/ },
  { part: "route and order view", frame: /src\/api\/partner\/(routes|views|order-command|errors)/ },
  { part: "journal encoding and hash chain", frame: /journal|plain-data/ },
  { part: "engine loop", frame: /src\/engine\// },
  { part: "core (decide, evolve)", frame: /src\/core\// },
  {
    part: "store: SQLite (journal and engine rows, BEGIN/COMMIT)",
    frame: /src\/store\/sqlite|better-sqlite3/,
  },
  { part: "store: PostgreSQL (node side)", frame: /src\/store\/postgres|node_modules\/pg/ },
  { part: "reply serialization", frame: /fast-json-stringify/ },
  { part: "validation", frame: /typebox|exact-query/ },
  { part: "Fastify", frame: /fastify|find-my-way|avvio|cookie/ },
  { part: "node:http", frame: /node:_http|node:net|node:stream|node:internal\/streams|writev|parserOn/ },
];

export interface Shares {
  /** The window's length and how much of it the thread was busy, in seconds. */
  readonly windowSeconds: number;
  readonly busySeconds: number;
  /** Each part's share of the busy time, largest first; "other" is what no rule named. */
  readonly parts: readonly { part: string; share: number }[];
  /** The innermost frames of "other", largest first, to write the next rule from. */
  readonly unnamed: readonly { frame: string; share: number }[];
}

const frameText = (frame: CallFrame): string =>
  `${frame.functionName} ${frame.url.replace(/^.*?\/(src|node_modules)\//, "$1/")}`;

/**
 * Busy time by part, over the samples between the first and the last that have a frame matching
 * `window` on their stack (2% cut at each end, so the bench's ramp-up and -down do not count).
 */
export function profileShares(profile: CpuProfile, rules: readonly ShareRule[], window?: RegExp): Shares {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const stackOf = (leaf: number): string[] => {
    const stack: string[] = [];
    for (let id: number | undefined = leaf; id !== undefined; id = parents.get(id)) {
      const node = nodes.get(id);
      if (node !== undefined) stack.push(frameText(node.callFrame));
    }
    return stack;
  };
  const times: number[] = [];
  let time = profile.startTime;
  for (const delta of profile.timeDeltas) {
    time += delta;
    times.push(time);
  }
  let from = 0;
  let to = profile.samples.length - 1;
  if (window !== undefined) {
    const inWindow = profile.samples.flatMap((leaf, index) =>
      stackOf(leaf).some((frame) => window.test(frame)) ? [index] : [],
    );
    if (inWindow.length > 0) {
      from = inWindow[Math.floor(inWindow.length * 0.02)] ?? 0;
      to = inWindow[Math.floor(inWindow.length * 0.98)] ?? to;
    }
  }
  const byPart = new Map<string, number>();
  const unnamed = new Map<string, number>();
  let busy = 0;
  for (let index = from; index <= to; index++) {
    const duration = profile.timeDeltas[index + 1] ?? 0;
    const stack = stackOf(profile.samples[index] ?? -1);
    if (stack[0]?.startsWith("(idle)") ?? true) continue;
    busy += duration;
    const part = partOf(stack, rules);
    byPart.set(part, (byPart.get(part) ?? 0) + duration);
    if (part === "other") unnamed.set(stack[0] ?? "?", (unnamed.get(stack[0] ?? "?") ?? 0) + duration);
  }
  const sorted = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).map(([key, value]) => [key, busy === 0 ? 0 : value / busy] as const);
  return {
    windowSeconds: ((times[to] ?? 0) - (times[from] ?? 0)) / 1e6,
    busySeconds: busy / 1e6,
    parts: sorted(byPart).map(([part, share]) => ({ part, share })),
    unnamed: sorted(unnamed).map(([frame, share]) => ({ frame, share })),
  };
}

function partOf(stack: readonly string[], rules: readonly ShareRule[]): string {
  for (const rule of rules) {
    if (rule.owner === true && stack.some((frame) => rule.frame.test(frame))) return rule.part;
  }
  for (const frame of stack) {
    for (const rule of rules) if (rule.owner !== true && rule.frame.test(frame)) return rule.part;
  }
  return "other";
}
