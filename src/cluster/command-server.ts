// The engine leader's command port: API nodes POST commands here (command-wire.ts) and get the
// engine's answer after the durable commit. It listens on any free port of the host it is given
// (port 0); the engine node advertises the address through the database under its epoch.
//
// A command id seen in the last few seconds is answered with its first answer, not run again: an API
// node that lost an answer (a reset connection, its own timeout) retries the same id, and the retry
// joins the command already queued or committed. Ids older than the signature window are dropped;
// a request that old is refused by its signature's time anyway.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { SubmitResult } from "../engine/engine.js";
import { decodePlainData, encodePlainData } from "../engine/journal-codec.js";
import {
  commandSignatureHeader,
  commandSignatureProblem,
  commandSignatureWindowMs,
  commandTimeHeader,
} from "./command-auth.js";
import {
  type CommandAnswer,
  type CommandGroupAnswer,
  commandGroupPath,
  commandPath,
  type ForwardedCommand,
  type ForwardedGroup,
  groupItemForwardId,
} from "./command-wire.js";
import { answerOf, groupAnswerOf } from "./local-command-port.js";

/** A command body larger than this is refused (the largest real command is a few kilobytes). */
export const commandBodyBytesMax = 1024 * 1024;

export interface CommandServerOptions<Command, Event> {
  /** Submits to the engine; `forwardId` is recorded with the journal entry (forwarded-commands.ts). */
  readonly submit: (command: Command, forwardId: string) => Promise<SubmitResult<Event>>;
  /** Queues a group together (Engine.submitMany); each command is recorded under its own forward id. */
  readonly submitMany: (
    commands: readonly Command[],
    forwardIds: readonly string[],
  ) => Promise<SubmitResult<Event>[]>;
  /** False once this node must not take commands (leadership lost): answered "not-leader". */
  readonly accepting: () => boolean;
  readonly key: Buffer;
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  readonly logger: Logger;
  readonly nowMs?: () => number;
}

export interface CommandServer {
  /** http://host:port of the bound address. */
  readonly url: string;
  /** The bound port (the node advertises its reachable host with it). */
  readonly port: number;
  close(): Promise<void>;
}

interface Remembered<Event> {
  readonly answer: Promise<CommandAnswer<Event> | CommandGroupAnswer<Event>>;
  readonly atMs: number;
}

/** A decoded POST: one command or a group, and how to run it under its id. */
type Forwarded<Command> =
  | { readonly kind: "command"; readonly body: ForwardedCommand<Command> }
  | { readonly kind: "group"; readonly body: ForwardedGroup<Command> };

function decodeForwarded<Command>(path: string, body: string): Forwarded<Command> | undefined {
  try {
    if (path === commandPath) {
      const forwarded = decodePlainData<ForwardedCommand<Command>>(body);
      if (typeof forwarded.id !== "string" || typeof forwarded.command !== "object") return undefined;
      return { kind: "command", body: forwarded };
    }
    const group = decodePlainData<ForwardedGroup<Command>>(body);
    if (typeof group.id !== "string" || !Array.isArray(group.commands)) return undefined;
    if (!group.commands.every((command) => typeof command === "object" && command !== null)) return undefined;
    return { kind: "group", body: group };
  } catch {
    return undefined;
  }
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > commandBodyBytesMax) {
        resolve(undefined);
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}

export async function startCommandServer<Command, Event>(
  options: CommandServerOptions<Command, Event>,
): Promise<CommandServer> {
  const nowMs = options.nowMs ?? Date.now;
  const remembered = new Map<string, Remembered<Event>>();

  const forget = (now: number) => {
    // Insertion order is time order: the expired ids are a prefix.
    for (const [id, entry] of remembered) {
      if (now - entry.atMs <= 2 * commandSignatureWindowMs) return;
      remembered.delete(id);
    }
  };

  const run = (forwarded: Forwarded<Command>): Promise<CommandAnswer<Event> | CommandGroupAnswer<Event>> => {
    if (forwarded.kind === "command")
      return answerOf(options.submit, forwarded.body.command, forwarded.body.id);
    const { id, commands } = forwarded.body;
    const forwardIds = commands.map((_, index) => groupItemForwardId(id, index));
    return groupAnswerOf(options.submitMany, commands, forwardIds);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url;
    if (request.method !== "POST" || (path !== commandPath && path !== commandGroupPath)) {
      send(response, 404, encodePlainData({ error: "not found" }));
      return;
    }
    const body = await readBody(request);
    if (body === undefined) {
      send(response, 413, encodePlainData({ error: "body too large" }));
      return;
    }
    const now = nowMs();
    const problem = commandSignatureProblem(
      options.key,
      request.headers[commandTimeHeader] as string | undefined,
      request.headers[commandSignatureHeader] as string | undefined,
      body,
      now,
    );
    if (problem !== undefined) {
      options.logger.warn({ problem }, "engine command port: refused an unauthenticated request");
      send(response, 401, encodePlainData({ error: problem }));
      return;
    }
    const forwarded = decodeForwarded<Command>(path, body);
    if (forwarded === undefined) {
      send(response, 400, encodePlainData({ error: "malformed command" }));
      return;
    }
    const id = forwarded.body.id;
    forget(now);
    let entry = remembered.get(id);
    if (entry === undefined) {
      if (!options.accepting()) {
        const answer: CommandAnswer<Event> = {
          ok: false,
          refused: "not-leader",
          message: "This engine node does not lead",
        };
        send(response, 503, encodePlainData(answer));
        return;
      }
      entry = { answer: run(forwarded), atMs: now };
      remembered.set(id, entry);
    }
    const answer = await entry.answer;
    // A refusal that did nothing may be retried under the same id (the queue drains, a node leads).
    if ("refused" in answer && answer.refused !== "fatal") remembered.delete(id);
    send(response, "refused" in answer ? 503 : 200, encodePlainData(answer));
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.logger.error({ err: error }, "engine command port: request failed");
      if (!response.headersSent) send(response, 500, encodePlainData({ error: "internal" }));
      else response.destroy();
    });
  });
  // API nodes keep connections open between commands; the default 5 s would close them under them.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
