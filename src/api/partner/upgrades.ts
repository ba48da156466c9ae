// WebSocket upgrades on the signed host (spec 000 "Events"). Every upgrade passes the same gateway
// signature check as REST (a signed GET) and the API-key check; only then does the channel
// registered for its path take the socket. Channels register in `deps.socketChannels`.

import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { splitRequestTarget } from "../../contract/signing/string-to-sign.js";
import { writeGatewayRejectionToSocket, writeResponseToSocket } from "../../gateway/verifier.js";
import { apiKeyMatches } from "../../identity/service.js";
import { routeUpgrades } from "../../realtime/http-upgrades.js";
import type { PlatformDeps } from "../deps.js";
import { authErrors, failureAnswer, notFound, type ServiceError } from "./errors.js";

export type { SocketChannelHandler } from "../socket-channel.js";

export function installUpgradeGate(server: Server, deps: PlatformDeps): void {
  // WebSocket upgrades only: any other upgrade (h2c) is served as the plain request it also is.
  routeUpgrades(server, (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    gateUpgrade(deps, request, socket, head).catch((error: unknown) => {
      // A database that cannot be reached (the gateway's nonce, the session) is try-again-later.
      const failure = failureAnswer(error);
      if (failure.retryAfterSeconds === undefined)
        deps.logger.error({ err: error }, "WebSocket upgrade failed");
      else
        deps.logger.warn({ detail: (error as Error).message }, "WebSocket upgrade refused: try again later");
      writeServiceErrorToSocket(socket, failure.error, failure.retryAfterSeconds);
    });
  });
}

async function gateUpgrade(
  deps: PlatformDeps,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const verdict = await deps.gatewayVerifier.verifyUpgrade(request);
  if (!verdict.ok) return writeGatewayRejectionToSocket(socket, verdict.rejection);
  const apiKey = request.headers["x-api-key"];
  if (apiKey === undefined || apiKey === "")
    return writeServiceErrorToSocket(socket, authErrors.missingApiKey);
  if (typeof apiKey !== "string" || !apiKeyMatches(verdict.appKey, apiKey)) {
    return writeServiceErrorToSocket(socket, authErrors.invalidApiKey);
  }
  const channel = deps.socketChannels.get(splitRequestTarget(request.url ?? "/").path);
  if (channel === undefined) return writeServiceErrorToSocket(socket, notFound("Route not found"));
  channel(request, socket, head, verdict.appKey);
}

/** The service's JSON envelope on a raw socket, for refused upgrades. */
export function writeServiceErrorToSocket(
  socket: Duplex,
  error: ServiceError,
  retryAfterSeconds?: number,
): void {
  writeResponseToSocket(
    socket,
    error.status,
    {
      "content-type": "application/json; charset=utf-8",
      ...(retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) }),
    },
    JSON.stringify({ code: error.code, message: error.message, data: null }),
  );
}
