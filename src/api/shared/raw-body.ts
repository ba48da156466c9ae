// Keeps the exact bytes of every request body. The gateway hashes them (content-md5 must match the
// raw body, not a re-serialization), so no surface may let Fastify parse a body it has not kept.
// Parsing never fails here: a malformed body is reported after the signature has been checked, so
// a request with a bad signature always gets the gateway's answer first.

import type { FastifyInstance, FastifyRequest } from "fastify";

export type BodyProblem = "invalid_json" | "unsupported_media_type";

declare module "fastify" {
  interface FastifyRequest {
    /** The body bytes as received; undefined when the request had no body. */
    rawBody: Buffer | undefined;
    /** Set when the body could not be turned into JSON; the surface decides how to answer. */
    bodyProblem: BodyProblem | undefined;
  }
}

export function installRawBodyParsers(app: FastifyInstance): void {
  app.decorateRequest("rawBody", undefined);
  app.decorateRequest("bodyProblem", undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const bytes = body as Buffer;
    request.rawBody = bytes;
    if (bytes.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(bytes.toString("utf8")));
    } catch {
      markProblem(request, "invalid_json");
      done(null, undefined);
    }
  });
  app.addContentTypeParser("*", { parseAs: "buffer" }, (request, body, done) => {
    request.rawBody = body as Buffer;
    markProblem(request, "unsupported_media_type");
    done(null, undefined);
  });
}

function markProblem(request: FastifyRequest, problem: BodyProblem): void {
  request.bodyProblem = problem;
}
