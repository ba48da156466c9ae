// The desk's calls to the admin API: the admin token (kept in sessionStorage, so it leaves with the
// tab) goes as a bearer token on every request; a 401 signs the desk out.

import { ApiError, requestEnvelope } from "../shared/api.js";

const tokenKey = "predex.adminToken";
let onUnauthorized: (() => void) | undefined;

export function savedToken(): string | null {
  return sessionStorage.getItem(tokenKey);
}

export function saveToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(tokenKey);
  else sessionStorage.setItem(tokenKey, token);
}

export function whenUnauthorized(listener: () => void): void {
  onUnauthorized = listener;
}

export async function admin<Data>(
  method: string,
  path: string,
  body?: unknown,
  token = savedToken(),
): Promise<Data> {
  const headers: Record<string, string> = { authorization: `Bearer ${token ?? ""}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  try {
    return await requestEnvelope<Data>(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) onUnauthorized?.();
    throw error;
  }
}

/** GET /metrics (Prometheus text); null when this platform has no such route (404). */
export async function metricsText(): Promise<string | null> {
  const response = await fetch("/metrics", { headers: { authorization: `Bearer ${savedToken() ?? ""}` } });
  if (response.status === 404) return null;
  if (!response.ok) throw new ApiError(response.status, null, `GET /metrics: HTTP ${response.status}`);
  return response.text();
}

export interface Paged<Record> {
  readonly total: number;
  readonly pages: number;
  readonly current: number;
  readonly records: readonly Record[];
}
