// LISTEN on one channel, on a connection of its own (not a pooled one: it is held for the process's
// life), reopened after a failure. A notification is delivered only to sessions that were listening
// when it was committed, so whoever relies on hearing every one must know when it may have missed
// some: `onLost` says from when (the connection failed, or could not be opened), `onListening` says
// until when (LISTEN is in place again; anything committed from then on is heard).
//
// The journal's wake-ups (journal-wakeups.ts) keep their own loop of the same shape; they only need
// "look again" after a reconnect.

import type pg from "pg";
import { newPostgresClient } from "./database.js";

export interface ChannelListenerOptions {
  /** The connection's settings: a pool's own `pool.options` give the same URL, parsers and session options. */
  readonly connection: pg.PoolConfig;
  /** A plain identifier (lower case, digits, underscores). */
  readonly channel: string;
  /** Every notification on the channel, with its payload; must not throw. */
  readonly onNotification: (payload: string) => void;
  /** LISTEN is in place (the first time and after every reconnect); must not throw. */
  readonly onListening?: () => void;
  /**
   * The connection failed, or could not be opened or listen: notifications may be missed until the
   * next onListening. Called before every reconnection attempt; must not throw.
   */
  readonly onLost?: (error: unknown) => void;
  /** Pause before reconnecting after a failure. */
  readonly reconnectDelayMs?: number;
}

export interface ChannelListener {
  /** True while LISTEN is in place on a connection not known to have failed. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export const defaultListenReconnectDelayMs = 500;

/**
 * Starts listening; resolves once the first attempt has listened or failed (a failed one has called
 * onLost and keeps retrying, so a node starts even while its listening connection cannot be opened).
 */
export async function listenOnChannel(options: ChannelListenerOptions): Promise<ChannelListener> {
  if (!/^[a-z_][a-z0-9_]*$/.test(options.channel)) {
    throw new Error(`Not a plain channel name: ${options.channel}`);
  }
  const reconnectDelayMs = options.reconnectDelayMs ?? defaultListenReconnectDelayMs;
  let closed = false;
  let client: pg.Client | undefined;
  // The connection being opened, so that closing need not wait for a connect that hangs.
  let opening: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let connecting: Promise<void> | undefined;

  const lost = (error: unknown) => {
    options.onLost?.(error);
    scheduleReconnect();
  };

  const connect = async (): Promise<void> => {
    const next = newPostgresClient(options.connection);
    // Until LISTEN is in place a failure reaches the awaited calls below; after, only these events.
    const onFailure = (error: unknown) => {
      if (client !== next) return;
      client = undefined;
      next.end().catch(() => {});
      lost(error);
    };
    next.on("notification", (message) => {
      if (message.channel !== options.channel) return;
      options.onNotification(message.payload ?? "");
    });
    next.on("error", onFailure);
    next.on("end", () => onFailure(new Error(`LISTEN ${options.channel}: the connection ended`)));
    opening = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${options.channel}`);
    } catch (error) {
      next.end().catch(() => {});
      throw error;
    } finally {
      opening = undefined;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    options.onListening?.();
  };

  const attempt = () => {
    connecting = connect().catch((error: unknown) => {
      if (!closed) lost(error);
    });
    return connecting;
  };

  const scheduleReconnect = () => {
    if (closed || reconnectTimer !== undefined) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void attempt();
    }, reconnectDelayMs);
    reconnectTimer.unref();
  };

  await attempt();
  return {
    get listening() {
      return client !== undefined;
    },
    async close() {
      closed = true;
      if (reconnectTimer !== undefined) clearTimeout(reconnectTimer);
      opening?.end().catch(() => {});
      await connecting;
      const open = client;
      client = undefined;
      await open?.end().catch(() => {});
    },
  };
}
