// Wake-ups for whoever follows the journal (a standby today; API nodes' realtime next): LISTEN on the
// channel the journal's trigger NOTIFYs at each commit, and a timer besides. A notification carries
// nothing that matters: the follower reads the journal by sequence, so a notification lost with a
// dropped connection only delays it until the timer or the reconnect, which both wake it too.

import type pg from "pg";
import { connectPostgresClient } from "./database.js";
import { journalChannel } from "./engine-schema.js";

export interface JournalWakeupsOptions {
  readonly url: string;
  readonly applicationName: string;
  /**
   * Called on every notification (with the batch's last sequence, the trigger's payload), every
   * tick and every reconnect (without: look in any case); must not throw.
   */
  readonly onWake: (lastSequence?: bigint) => void;
  /** The timer's period: the longest a lost notification can delay the follower. */
  readonly pollEveryMs?: number;
  /** Pause before reconnecting after the listening connection fails. */
  readonly reconnectDelayMs?: number;
  /** Gives up opening the listening connection after this long (then tries again). */
  readonly connectTimeoutMs?: number;
}

export interface JournalWakeups {
  close(): Promise<void>;
}

export const defaultJournalPollEveryMs = 1_000;

export async function listenForJournalAppends(options: JournalWakeupsOptions): Promise<JournalWakeups> {
  const reconnectDelayMs = options.reconnectDelayMs ?? 500;
  let closed = false;
  let client: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = await connectPostgresClient({
      url: options.url,
      applicationName: options.applicationName,
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    });
    next.on("notification", (message) => {
      if (message.channel !== journalChannel) return;
      const payload = message.payload ?? "";
      options.onWake(/^[0-9]+$/.test(payload) ? BigInt(payload) : undefined);
    });
    const onFailure = () => {
      if (client !== next) return;
      client = undefined;
      next.end().catch(() => {});
      scheduleReconnect();
    };
    next.on("error", onFailure);
    next.on("end", onFailure);
    try {
      await next.query(`LISTEN ${journalChannel}`);
    } catch (error) {
      await next.end().catch(() => {});
      throw error;
    }
    if (closed) {
      await next.end();
      return;
    }
    client = next;
    // Anything committed while no connection listened is found by reading, so look now.
    options.onWake();
  };

  const scheduleReconnect = () => {
    if (closed || reconnectTimer !== undefined) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().catch(scheduleReconnect);
    }, reconnectDelayMs);
    reconnectTimer.unref();
  };

  // A database away at start is not a reason to fail: the timer looks meanwhile, and the
  // connection is tried again until it listens.
  await connect().catch(scheduleReconnect);
  const poll = setInterval(options.onWake, options.pollEveryMs ?? defaultJournalPollEveryMs);
  poll.unref();
  return {
    async close() {
      closed = true;
      clearInterval(poll);
      if (reconnectTimer !== undefined) clearTimeout(reconnectTimer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
