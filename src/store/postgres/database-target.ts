// Which server a connection goes to, for the URLs libpq accepts and node-postgres does not: several
// hosts (`postgres://user@db-a:5432,db-b:5432/predex`) and `target_session_attrs`. node-postgres takes
// one host, ignores target_session_attrs, and refuses the host list ("Invalid URL"), so an operator's
// failover story (list the primary and its replicas; connect to whichever is the writable primary)
// needs this: libpq's behaviour on top of node-postgres (docs/decisions.md "Multi-host database URLs").
//
// As libpq: with `target_session_attrs=read-write` a connection is kept only if `SHOW
// transaction_read_only` says off (`primary`: only if `pg_is_in_recovery()` is false), and the other
// hosts are tried in the order listed. Unlike libpq, the hosts are tried at once (each within the
// connect timeout), so a host whose machine is gone costs one timeout rather than one per listed host
// before it, and the host last found acceptable is tried first from then on, so a process does not
// go back to a listed-first old primary that came back writable after a failover.

import type pg from "pg";

export type TargetSessionAttributes = "any" | "read-write" | "primary";

export interface DatabaseHost {
  readonly host: string;
  readonly port: number;
}

export interface DatabaseTarget {
  readonly hosts: readonly DatabaseHost[];
  readonly sessionAttributes: TargetSessionAttributes;
  /** The URL node-postgres is given (the first host, target_session_attrs removed). */
  readonly baseUrl: string;
}

/** A host was reached but is not what target_session_attrs asks for (a standby, a read-only primary). */
export class UnacceptableServerError extends Error {
  override readonly name = "UnacceptableServerError";
}

/** No listed host could be reached, or none was acceptable. */
export class NoAcceptableServerError extends Error {
  override readonly name = "NoAcceptableServerError";
}

const defaultPort = 5432;
const acceptedAttributes: readonly TargetSessionAttributes[] = ["any", "read-write", "primary"];

/** One `host[:port]` of the list; an IPv6 address in brackets. */
function parseHost(text: string): DatabaseHost {
  const match = /^(\[[^\]]+\]|[^:]*)(?::(\d+))?$/.exec(text);
  if (match === null) throw new Error(`Not a host[:port] in the database URL: "${text}"`);
  const host = decodeURIComponent(match[1]!.replace(/^\[(.*)\]$/, "$1"));
  return { host, port: match[2] === undefined ? defaultPort : Number(match[2]) };
}

/**
 * The hosts and target_session_attrs of a postgres:// URL; undefined for a URL node-postgres takes
 * as it is (one host or none, no target_session_attrs), which is then left to it unchanged.
 */
export function parseDatabaseTarget(url: string): DatabaseTarget | undefined {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/.exec(url);
  if (match === null) return undefined;
  const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
  const at = authority.lastIndexOf("@");
  const userInfo = at === -1 ? "" : authority.slice(0, at + 1);
  const hostList = at === -1 ? authority : authority.slice(at + 1);
  const [pathPart, ...queryParts] = rest.split("?");
  const query = new URLSearchParams(queryParts.join("?").replace(/#.*$/, ""));
  const attributes = query.get("target_session_attrs") ?? "any";
  if (!acceptedAttributes.includes(attributes as TargetSessionAttributes)) {
    throw new Error(
      `target_session_attrs=${attributes} is not supported: predex writes, so it takes any, read-write or primary`,
    );
  }
  const hostTexts = hostList.split(",");
  if (hostTexts.length === 1 && attributes === "any") return undefined;
  const hosts = hostTexts.map(parseHost);
  if (hosts.some((host) => host.host === "")) {
    throw new Error("Every host of a multi-host database URL needs a name");
  }
  query.delete("target_session_attrs");
  const queryText = query.toString();
  const first = hostTexts[0]!;
  return {
    hosts,
    sessionAttributes: attributes as TargetSessionAttributes,
    baseUrl: `${scheme}${userInfo}${first}${pathPart ?? ""}${queryText === "" ? "" : `?${queryText}`}`,
  };
}

const hostKey = (host: DatabaseHost) => `${host.host}:${host.port}`;

/** Whether a connected client's server is what the target asks for; throws if not. */
export async function checkSessionAttributes(
  client: pg.Client,
  attributes: TargetSessionAttributes,
  host: DatabaseHost,
): Promise<void> {
  if (attributes === "read-write") {
    const result = await client.query<{ transaction_read_only: string }>("SHOW transaction_read_only");
    if (result.rows[0]?.transaction_read_only !== "off") {
      throw new UnacceptableServerError(`${hostKey(host)} is read-only (target_session_attrs=read-write)`);
    }
  } else if (attributes === "primary") {
    const result = await client.query<{ recovering: boolean }>("SELECT pg_is_in_recovery() AS recovering");
    if (result.rows[0]?.recovering !== false) {
      throw new UnacceptableServerError(`${hostKey(host)} is a standby (target_session_attrs=primary)`);
    }
  }
}

/**
 * Chooses the host each new connection of one URL goes to: the one last found acceptable, else the
 * first acceptable in list order, found by probing every host at once. Shared by every connection of
 * the process to that URL.
 */
export class HostChooser {
  #remembered: DatabaseHost | undefined;
  #probing: Promise<DatabaseHost> | undefined;

  constructor(
    readonly target: DatabaseTarget,
    /** Opens a plain client to one host, connected (with the connect timeout), for a probe. */
    private readonly connectTo: (host: DatabaseHost) => Promise<pg.Client>,
  ) {}

  /** The host to connect to now. */
  choose(): Promise<DatabaseHost> {
    if (this.#remembered !== undefined) return Promise.resolve(this.#remembered);
    if (this.target.hosts.length === 1) return Promise.resolve(this.target.hosts[0]!);
    this.#probing ??= this.#probe().finally(() => {
      this.#probing = undefined;
    });
    return this.#probing;
  }

  /** A connection to `host` turned out acceptable: later ones go there first. */
  accepted(host: DatabaseHost): void {
    this.#remembered = host;
  }

  /** A connection to `host` failed or was unacceptable: the next one probes again. */
  failed(host: DatabaseHost): void {
    if (this.#remembered !== undefined && hostKey(this.#remembered) === hostKey(host)) {
      this.#remembered = undefined;
    }
  }

  async #probe(): Promise<DatabaseHost> {
    const { hosts, sessionAttributes } = this.target;
    // Settled results, never rejections: a later host's failure must not go unheard while an
    // earlier one is awaited.
    const outcomes = hosts.map(async (host): Promise<string | undefined> => {
      try {
        const client = await this.connectTo(host);
        try {
          await checkSessionAttributes(client, sessionAttributes, host);
        } finally {
          await client.end().catch(() => {});
        }
        return undefined;
      } catch (error) {
        return `${hostKey(host)}: ${error instanceof Error ? error.message : String(error)}`;
      }
    });
    // The first acceptable host in list order, without waiting on a later one once it is found.
    const problems: string[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const problem = await outcome;
      if (problem === undefined) {
        this.#remembered = hosts[index]!;
        return hosts[index]!;
      }
      problems.push(problem);
    }
    throw new NoAcceptableServerError(
      `No acceptable database server (target_session_attrs=${sessionAttributes}): ${problems.join("; ")}`,
    );
  }
}
