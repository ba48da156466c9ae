// The public /ws/market (spec 000, DESIGN §8): Polymarket's market channel, no credentials.
// A client subscribes at connect ({"type":"market","assets_ids":[…]}) or later
// ({"operation":"subscribe"|"unsubscribe","assets_ids":[…]}); each newly subscribed asset gets its
// `book` right away, then price_change, last_trade_price, best_bid_ask; every socket hears
// new_market. A text PING is answered PONG.

import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { type RawData, WebSocketServer } from "ws";
import { writeResponseToSocket } from "../gateway/verifier.js";
import { closeCodes, Subscriber } from "./fanout.js";
import { routeUpgrades } from "./http-upgrades.js";
import type { RealtimeHub } from "./hub.js";
import { encode } from "./messages.js";

export const publicMarketPath = "/ws/market";
const pong = Buffer.from("PONG", "utf8");

export interface SubscriptionRequest {
  readonly operation: "subscribe" | "unsubscribe";
  readonly assetIds: readonly string[];
  readonly initialDump: boolean;
}

/** Parses one client message; a string is the reason it was refused. */
export function parseSubscription(text: string): SubscriptionRequest | string {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return "message must be JSON or PING";
  }
  if (typeof message !== "object" || message === null || Array.isArray(message))
    return "message must be a JSON object";
  const fields = message as Record<string, unknown>;
  const assetIds = fields.assets_ids;
  if (!Array.isArray(assetIds) || !assetIds.every((id) => typeof id === "string")) {
    return "assets_ids must be an array of strings";
  }
  const operation = fields.operation;
  if (operation !== undefined && operation !== "subscribe" && operation !== "unsubscribe") {
    return 'operation must be "subscribe" or "unsubscribe"';
  }
  if (
    operation === undefined &&
    fields.type !== undefined &&
    String(fields.type).toLowerCase() !== "market"
  ) {
    return 'type must be "market"';
  }
  return {
    operation: operation ?? "subscribe",
    assetIds: [...new Set(assetIds as string[])],
    initialDump: fields.initial_dump !== false,
  };
}

export function installPublicMarketSocket(server: Server, hub: RealtimeHub, logger: Logger): WebSocketServer {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: hub.limits.inboundMessageBytesMax });
  const socketsByAddress = new Map<string, number>();

  // WebSocket upgrades only: any other upgrade (h2c) is served as the plain request it also is.
  routeUpgrades(server, (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== publicMarketPath) {
      return writeResponseToSocket(
        socket,
        404,
        { "content-type": "application/json; charset=utf-8" },
        JSON.stringify({ error: "not found" }),
      );
    }
    const address = request.socket.remoteAddress ?? "unknown";
    const open = socketsByAddress.get(address) ?? 0;
    if (open >= hub.limits.socketsPerIpMax) {
      return writeResponseToSocket(
        socket,
        429,
        { "content-type": "application/json; charset=utf-8" },
        JSON.stringify({ error: "too many connections" }),
      );
    }
    socketsByAddress.set(address, open + 1);
    sockets.handleUpgrade(request, socket, head, (ws) => {
      const subscriber = new Subscriber(ws, hub.limits.wsBufferedBytesMax, hub.socketStats.public);
      const assets = new Set<string>();
      const removePublic = hub.addPublicSocket(subscriber);
      hub.track(subscriber, () => {
        removePublic();
        for (const assetId of assets) hub.unsubscribeAsset(subscriber, assetId);
        assets.clear();
        const left = (socketsByAddress.get(address) ?? 1) - 1;
        if (left <= 0) socketsByAddress.delete(address);
        else socketsByAddress.set(address, left);
      });
      ws.on("error", () => ws.terminate());
      ws.on("message", (data: RawData, isBinary: boolean) => {
        const text = isBinary ? "" : String(data);
        if (text === "PING") {
          subscriber.send(pong);
          return;
        }
        const request = parseSubscription(text);
        if (typeof request === "string") {
          subscriber.send(encode({ error: request }));
          return;
        }
        if (request.operation === "unsubscribe") {
          for (const assetId of request.assetIds) {
            if (assets.delete(assetId)) hub.unsubscribeAsset(subscriber, assetId);
          }
          return;
        }
        const added = request.assetIds.filter((assetId) => !assets.has(assetId));
        if (assets.size + added.length > hub.limits.subscriptionsPerSocketMax) {
          subscriber.close(
            closeCodes.policyViolation,
            `at most ${hub.limits.subscriptionsPerSocketMax} assets per connection`,
          );
          return;
        }
        for (const assetId of added) {
          assets.add(assetId);
          hub.subscribeAsset(subscriber, assetId);
        }
        if (!request.initialDump) return;
        void (async () => {
          for (const assetId of added) await hub.sendBook(subscriber, assetId);
        })().catch((error: unknown) => {
          logger.error({ err: error }, "sending a book to a public socket failed");
          subscriber.close(closeCodes.upstreamUnavailable, "upstream unavailable");
        });
      });
    });
  });
  return sockets;
}
