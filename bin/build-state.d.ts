// Types of bin/build-state.js (plain JavaScript, so that `predex` loads no compiler).

export declare const projectRoot: string;
export declare const buildDirectoryName: string;
export declare const buildStampName: string;
export declare function compiledEntry(root?: string): string;
export interface BuildState {
  readonly kind: "fresh" | "missing" | "stale";
  readonly reason: string;
}
export declare function buildState(root?: string): BuildState;
