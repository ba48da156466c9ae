// A fetch for the SDK that keeps every answer it got, retried ones included, so an end-to-end test
// can check what the server really said (the SDK's own retries hide the answers it retried): status,
// business code, Retry-After, the request's body. A request that got no answer is kept with status 0
// and the socket error's code.

export interface RecordedAnswer {
  readonly atMs: number;
  readonly method: string;
  readonly path: string;
  /** 0: no answer (the error's code is in `networkError`). */
  readonly status: number;
  readonly code: number | null;
  readonly message: string | null;
  readonly retryAfter: string | null;
  readonly requestBody: string | undefined;
  readonly networkError?: string;
}

export function recordingFetch(answers: RecordedAnswer[]): typeof fetch {
  return (async (input: URL | string, init?: RequestInit) => {
    const url = new URL(String(input));
    const requestBody =
      init?.body === undefined ? undefined : Buffer.from(init.body as Uint8Array).toString("utf8");
    const base = { atMs: Date.now(), method: String(init?.method ?? "GET"), path: url.pathname, requestBody };
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      answers.push({
        ...base,
        status: 0,
        code: null,
        message: null,
        retryAfter: null,
        networkError: cause?.code ?? (error as Error).name,
      });
      throw error;
    }
    const text = await response.clone().text();
    let envelope: { code?: number; message?: string } = {};
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {}
    answers.push({
      ...base,
      status: response.status,
      code: typeof envelope.code === "number" ? envelope.code : null,
      message: typeof envelope.message === "string" ? envelope.message : text.slice(0, 200),
      retryAfter: response.headers.get("retry-after"),
    });
    return response;
  }) as typeof fetch;
}
