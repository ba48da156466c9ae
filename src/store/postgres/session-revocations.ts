// The session cache of a PostgreSQL node (session-cache.ts), told of every node's revocations: it
// LISTENs on the identity store's `sessionsChangedChannel` (NOTIFYed with the user's id by the
// statement that revokes or evicts, identity.ts) and forgets that user's kept sessions when it hears
// one. Sessions are kept only while the listening connection is up (docs/decisions.md, "Session
// revocation across nodes").

import type pg from "pg";
import type { IdentityStore } from "../identity.js";
import { listenOnChannel } from "./channel-listener.js";
import type { PostgresPool } from "./database.js";
import { sessionsChangedChannel } from "./identity.js";
import { cacheSessions, type SessionCacheOptions } from "./session-cache.js";

export interface PostgresSessionCacheOptions extends SessionCacheOptions {
  /** The listening connection's settings; by default the pool's own. */
  readonly listenConnection?: pg.ClientConfig;
  /** Pause before listening again after the listening connection fails. */
  readonly reconnectDelayMs?: number;
  /** The listening connection failed or could not be opened (it is retried); must not throw. */
  readonly onListenError?: (error: unknown) => void;
}

export interface PostgresSessionCache {
  /** The identity store with findSession cached. */
  readonly identity: IdentityStore;
  /** True while other nodes' revocations are heard, so sessions may be kept. */
  readonly listening: boolean;
  /** Stops listening (the platform's close path). */
  close(): Promise<void>;
}

/** `store` (the PostgreSQL identity store on `pool`) with its sessions cached on this node. */
export async function openPostgresSessionCache(
  pool: PostgresPool,
  store: IdentityStore,
  options: PostgresSessionCacheOptions = {},
): Promise<PostgresSessionCache> {
  const cache = cacheSessions(store, options);
  const listener = await listenOnChannel({
    connection: options.listenConnection ?? pool.options,
    channel: sessionsChangedChannel,
    onNotification(payload) {
      // Not a user's id (nothing of predex's sends that): forget every user rather than guess.
      const userId = /^[0-9]{1,15}$/.test(payload) ? Number(payload) : undefined;
      if (userId !== undefined) cache.forgetUser(userId);
      else cache.hearOtherNodes(true);
    },
    onListening: () => cache.hearOtherNodes(true),
    onLost(error) {
      cache.hearOtherNodes(false);
      options.onListenError?.(error);
    },
    ...(options.reconnectDelayMs === undefined ? {} : { reconnectDelayMs: options.reconnectDelayMs }),
  });
  return {
    identity: cache.identity,
    get listening() {
      return listener.listening;
    },
    async close() {
      await listener.close();
      cache.hearOtherNodes(false);
    },
  };
}
