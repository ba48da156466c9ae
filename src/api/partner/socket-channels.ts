// The WebSocket channels of the signed host: the five of spec 000 "Events" and /socket/user-trades
// (DESIGN §9). The upgrade gate has already
// checked the gateway signature and the API key; here each channel checks its own query, the user
// channels their signed session cookie, and only then is the handshake completed.

import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { socketPaths } from "../../contract/paths.js";
import { parseId } from "../../contract/wire-format.js";
import { type Rejection, reject } from "../../core/errors.js";
import { bookSnapshot } from "../../core/exchange.js";
import type { AuthenticatedPartner } from "../../identity/service.js";
import { Subscriber } from "../../realtime/fanout.js";
import type { RealtimeHub, UserChannel } from "../../realtime/hub.js";
import type { PlatformDeps } from "../deps.js";
import { authErrors, failureAnswer, fromRejection, notFound, type ServiceError } from "./errors.js";
import { sessionCookieName } from "./session.js";
import { type HandshakeRefusal, handshakeErrors, writeRefusal } from "./socket-handshake.js";

type Query = URLSearchParams;
type Accepted<T> = { ok: true; value: T } | { ok: false; refusal: HandshakeRefusal };

const refuse = (rejection: Rejection): Accepted<never> => ({
  ok: false,
  refusal: { kind: "service", error: fromRejection(rejection) },
});
const serviceRefusal = (error: ServiceError): Accepted<never> => ({
  ok: false,
  refusal: { kind: "service", error },
});

export function registerSignedChannels(deps: PlatformDeps, hub: RealtimeHub): WebSocketServer {
  const server = new WebSocketServer({ noServer: true, maxPayload: hub.limits.inboundMessageBytesMax });
  const socketsByPartner = new Map<number, number>();

  /** Completes the handshake and hands the socket over, counting it against the partner's limit. */
  const accept = (
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    partner: AuthenticatedPartner,
    attach: (subscriber: Subscriber) => Promise<() => void> | (() => void),
  ): void => {
    const open = socketsByPartner.get(partner.partnerId) ?? 0;
    if (open >= hub.limits.socketsPerPartnerMax) {
      writeRefusal(socket, { kind: "too_many", detail: "WebSocket connection limit reached" });
      return;
    }
    if (!hub.upstreamHealthy) {
      writeRefusal(socket, { kind: "upstream" });
      return;
    }
    socketsByPartner.set(partner.partnerId, open + 1);
    server.handleUpgrade(request, socket, head, (ws) => {
      const subscriber = new Subscriber(ws, hub.limits.wsBufferedBytesMax, hub.socketStats.gateway);
      let detach: (() => void) | undefined;
      let gone = false;
      hub.track(subscriber, () => {
        gone = true;
        const left = (socketsByPartner.get(partner.partnerId) ?? 1) - 1;
        if (left <= 0) socketsByPartner.delete(partner.partnerId);
        else socketsByPartner.set(partner.partnerId, left);
        detach?.();
      });
      // Signed channels only publish; whatever a client sends is ignored.
      ws.on("error", () => ws.terminate());
      Promise.resolve(attach(subscriber)).then(
        (unsubscribe) => {
          if (gone) unsubscribe();
          else detach = unsubscribe;
        },
        (error: unknown) => {
          deps.logger.error({ err: error }, "attaching a realtime channel failed");
          subscriber.close(1011, "upstream unavailable");
        },
      );
    });
  };

  const handle =
    (
      check: (
        query: Query,
        request: IncomingMessage,
        partner: AuthenticatedPartner,
      ) => Promise<Accepted<(s: Subscriber) => Promise<() => void> | (() => void)>>,
    ) =>
    (request: IncomingMessage, socket: Duplex, head: Buffer, partner: AuthenticatedPartner): void => {
      const query = new URL(request.url ?? "/", "http://socket").searchParams;
      check(query, request, partner).then(
        (verdict) => {
          if (!verdict.ok) return writeRefusal(socket, verdict.refusal);
          accept(request, socket, head, partner, verdict.value);
        },
        (error: unknown) => {
          const failure = failureAnswer(error);
          if (failure.retryAfterSeconds === undefined)
            deps.logger.error({ err: error }, "a realtime handshake failed");
          writeRefusal(socket, { kind: "service", ...failure });
        },
      );
    };

  deps.socketChannels.set(
    socketPaths.clobPriceUpdate,
    handle(async (query) => {
      const ids = requiredIds(query, ["marketId", "outcomeId"]);
      if (!ids.ok) return ids;
      const [marketId, outcomeId] = ids.value as [number, number];
      const optionText = query.get("optionId");
      const optionId = optionText === null || optionText === "" ? null : parseId(optionText);
      if (optionId === undefined) return refuse(reject("OPTION_NOT_FOUND"));
      // The same checks and answers as GET /orderbook/book, including 4054 for a draft market.
      const found = await hub.engine.read((state) => {
        const snapshot = bookSnapshot(state, { marketId, outcomeId, optionId });
        if (!snapshot.ok) return snapshot;
        const option = state.options.get(snapshot.value.optionId)!;
        return { ok: true as const, optionIndex: option.optionIndex };
      });
      if (!found.ok) return refuse(found.rejection);
      return {
        ok: true,
        value: (subscriber: Subscriber) => hub.addClobSubscriber(subscriber, outcomeId, found.optionIndex),
      };
    }),
  );

  deps.socketChannels.set(
    socketPaths.marketPrice,
    handle(async (query) => {
      const ids = requiredIds(query, ["marketId"]);
      if (!ids.ok) return ids;
      const [marketId] = ids.value as [number];
      const exists = await hub.engine.read((state) => state.markets.has(marketId));
      if (!exists) return serviceRefusal(notFound("Market not found"));
      return {
        ok: true,
        value: (subscriber: Subscriber) => hub.addMarketPriceSubscriber(subscriber, marketId),
      };
    }),
  );

  const userChannel = (channel: UserChannel) =>
    handle(async (query, request, partner) => {
      const session = await sessionOf(deps, request, partner);
      if (!session.ok) return session;
      const { userId, token } = session.value;
      let marketId: number | null = null;
      if (channel === "positions") {
        const userText = query.get("userId");
        if (userText !== null && userText !== "" && parseId(userText) !== userId) {
          return serviceRefusal(handshakeErrors.otherUser);
        }
        const marketText = query.get("marketId");
        if (marketText !== null && marketText !== "") {
          const parsed = parseId(marketText);
          const exists =
            parsed !== undefined && (await hub.engine.read((state) => state.markets.has(parsed)));
          if (!exists || parsed === undefined) return serviceRefusal(notFound("Market not found"));
          marketId = parsed;
        }
      }
      return {
        ok: true,
        value: (subscriber: Subscriber) =>
          hub.addUserSubscription({
            channel,
            subscriber,
            userId,
            partnerId: partner.partnerId,
            sessionToken: token,
            marketId,
            pending: [],
            checking: false,
          }),
      };
    });
  deps.socketChannels.set(socketPaths.userInfo, userChannel("info"));
  deps.socketChannels.set(socketPaths.userPositions, userChannel("positions"));
  deps.socketChannels.set(socketPaths.userOpenOrders, userChannel("orders"));
  deps.socketChannels.set(socketPaths.userTrades, userChannel("trades"));
  return server;
}

/** Required positive ids; a missing one is the spec's text/plain 400, a malformed one names nothing (404). */
function requiredIds(query: Query, names: readonly string[]): Accepted<number[]> {
  const ids: number[] = [];
  for (const name of names) {
    const text = query.get(name);
    if (text === null || text === "")
      return { ok: false, refusal: { kind: "query", detail: `missing field \`${name}\`` } };
    const id = parseId(text);
    if (id === undefined) {
      const thing = name === "marketId" ? "Market" : name === "outcomeId" ? "Outcome" : "Option";
      return serviceRefusal(notFound(`${thing} not found`));
    }
    ids.push(id);
  }
  return { ok: true, value: ids };
}

/** The user channels' session: the cookie must be there, signed, and name a live session of this partner. */
async function sessionOf(
  deps: PlatformDeps,
  request: IncomingMessage,
  partner: AuthenticatedPartner,
): Promise<Accepted<{ userId: number; token: string }>> {
  const cookie = request.headers.cookie;
  if (cookie === undefined) return serviceRefusal(authErrors.missingCookie);
  const signedNames = String(request.headers["x-ca-signature-headers"] ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase());
  if (!signedNames.includes("cookie")) return serviceRefusal(handshakeErrors.cookieNotSigned);
  const token = cookieValue(cookie, sessionCookieName);
  const user =
    token === undefined || token === ""
      ? undefined
      : await deps.identity.resolveSession(token, partner.partnerId);
  if (user === undefined || token === undefined) return serviceRefusal(authErrors.invalidSession);
  return { ok: true, value: { userId: user.userId, token } };
}

function cookieValue(header: string, name: string): string | undefined {
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator !== -1 && part.slice(0, separator).trim() === name)
      return decodeURIComponent(part.slice(separator + 1).trim());
  }
  return undefined;
}
