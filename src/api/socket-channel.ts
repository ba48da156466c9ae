// What a WebSocket channel of the signed host is to the upgrade gate (src/api/partner/upgrades.ts):
// PlatformDeps holds them by path, the gate hands each its verified upgrade.

import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { AuthenticatedPartner } from "../identity/service.js";

/**
 * Takes over an upgrade whose signature and API key were verified. It must complete the handshake
 * (e.g. `WebSocketServer.handleUpgrade`) or answer on the socket itself, such as a 401 for a
 * user channel without a live session.
 */
export type SocketChannelHandler = (
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  partner: AuthenticatedPartner,
) => void;
