// The demo bot talks only to this machine: a listener bound to every interface is reached through
// loopback, and one bound to another address is not used at all.

const wildcardHosts: ReadonlyMap<string, string> = new Map([
  ["0.0.0.0", "127.0.0.1"],
  ["[::]", "[::1]"],
]);

/** The loopback URL of a listener address such as `http://0.0.0.0:8080`, or undefined if there is none. */
export function loopbackUrlOf(address: string): string | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  const replacement = wildcardHosts.get(url.hostname);
  if (replacement !== undefined) url.hostname = replacement;
  if (!isLoopbackHost(url.hostname)) return undefined;
  return url.origin;
}

export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
