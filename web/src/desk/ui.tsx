// Small building blocks of the desk: loading data with a refresh (and optional polling), running an
// action and showing what the API answered, and a pager.

import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { errorText } from "../shared/api.js";

export interface Loaded<Data> {
  readonly data: Data | null;
  readonly error: string | null;
  readonly reload: () => void;
}

/** Loads with `load` whenever a dependency changes, on reload(), and every pollMs when given. */
export function useLoad<Data>(
  load: () => Promise<Data>,
  dependencies: unknown[],
  pollMs?: number,
): Loaded<Data> {
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let cancelled = false;
    const run = () =>
      loadRef
        .current()
        .then((value) => {
          if (cancelled) return;
          setData(value);
          setError(null);
        })
        .catch((failure: unknown) => !cancelled && setError(errorText(failure)));
    void run();
    const timer = pollMs === undefined ? undefined : window.setInterval(run, pollMs);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [...dependencies, generation, pollMs]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data, error, reload };
}

export type Outcome = { kind: "ok"; text: string } | { kind: "error"; text: string };

/** What the last action of a panel gave: the API's own message when it was refused. */
export function useOutcome() {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<string>, after?: () => void) => {
    setBusy(true);
    try {
      setOutcome({ kind: "ok", text: await action() });
      after?.();
      return true;
    } catch (failure) {
      setOutcome({ kind: "error", text: errorText(failure) });
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { outcome, busy, run, clear: () => setOutcome(null) };
}

export function OutcomeNotice({ outcome }: { outcome: Outcome | null }) {
  if (outcome === null) return null;
  return (
    <p
      class={`notice ${outcome.kind}`}
      role={outcome.kind === "error" ? "alert" : "status"}
      data-testid="outcome"
    >
      {outcome.kind === "error" ? "Refused: " : ""}
      {outcome.text}
    </p>
  );
}

export function LoadError({ error }: { error: string | null }) {
  return error === null ? null : (
    <p class="notice error" role="alert">
      {error}
    </p>
  );
}

export function Pager(props: { page: number; pages: number; total: number; onPage: (page: number) => void }) {
  return (
    <nav class="row small" aria-label="Pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span class="muted">
        Page {props.page} of {Math.max(1, props.pages)} · {props.total} in all
      </span>
      <button type="button" disabled={props.page >= props.pages} onClick={() => props.onPage(props.page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function Section(props: {
  title: string;
  id: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="panel stack" aria-labelledby={props.id}>
      <div class="row" style={{ justifyContent: "space-between" }}>
        <h2 id={props.id}>{props.title}</h2>
        {props.actions}
      </div>
      {props.children}
    </section>
  );
}
