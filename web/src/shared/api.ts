// Calls to the platform's own JSON APIs from the browser: the current interface's envelope
// ({code, message, data}); anything but code 0 becomes an ApiError carrying the server's message,
// which the pages show as is.

export class ApiError extends Error {
  readonly status: number;
  readonly code: number | null;

  constructor(status: number, code: number | null, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

interface Envelope<Data> {
  readonly code: number;
  readonly message: string;
  readonly data: Data;
}

/** Requests a JSON envelope and returns its data; throws ApiError with the server's own message. */
export async function requestEnvelope<Data>(url: string, init: RequestInit = {}): Promise<Data> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ApiError(0, null, "The platform cannot be reached (network error)");
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const envelope = body as Partial<Envelope<Data>> | undefined;
  if (envelope !== undefined && typeof envelope.code === "number") {
    if (response.ok && envelope.code === 0) return envelope.data as Data;
    throw new ApiError(response.status, envelope.code, envelope.message ?? `HTTP ${response.status}`);
  }
  const plain = text.trim().slice(0, 300);
  throw new ApiError(response.status, null, plain === "" ? `HTTP ${response.status}` : plain);
}

/** The message to show for anything thrown by a request. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError)
    return error.code === null ? error.message : `${error.message} (code ${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}
