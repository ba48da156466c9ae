// Keeps the exact bytes of every request body. The gateway hashes them (content-md5 must match the
// raw body, not a re-serialization), so no surface may let Fastify parse a body it has not kept.
// Parsing never fails here: a malformed body is reported after authentication, so a request with a
// bad signature always gets the gateway's answer first. Authenticated surfaces also defer the JSON
// decoding itself until the caller is known, so an anonymous request cannot make the server parse
// a megabyte of JSON.

import type { FastifyInstance, FastifyRequest } from "fastify";

export type BodyProblem = "invalid_json" | "unsupported_media_type";

declare module "fastify" {
  interface FastifyRequest {
    /** The body bytes as received; undefined when the request had no body. */
    rawBody: Buffer | undefined;
    /** Set when the body could not be turned into JSON; the surface decides how to answer. */
    bodyProblem: BodyProblem | undefined;
    /** A JSON body was received but not decoded yet (see decodeJsonBody). */
    jsonBodyPending: boolean;
  }
}

export interface RawBodyOptions {
  /**
   * "after-authentication": the surface calls decodeJsonBody once the caller is authenticated
   * (in its preValidation hook, before schema validation). "eager": decoded while the body is read.
   */
  readonly jsonDecoding: "eager" | "after-authentication";
}

export function installRawBodyParsers(app: FastifyInstance, options: RawBodyOptions): void {
  app.decorateRequest("rawBody", undefined);
  app.decorateRequest("bodyProblem", undefined);
  app.decorateRequest("jsonBodyPending", false);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    request.rawBody = body as Buffer;
    if (options.jsonDecoding === "eager") return done(null, decodeJson(request));
    request.jsonBodyPending = true;
    done(null, undefined);
  });
  app.addContentTypeParser("*", { parseAs: "buffer" }, (request, body, done) => {
    request.rawBody = body as Buffer;
    request.bodyProblem = "unsupported_media_type";
    done(null, undefined);
  });
}

/** Decodes a deferred JSON body into request.body; sets bodyProblem when it is not valid JSON. */
export function decodeJsonBody(request: FastifyRequest): void {
  if (!request.jsonBodyPending) return;
  request.jsonBodyPending = false;
  request.body = decodeJson(request);
}

function decodeJson(request: FastifyRequest): unknown {
  const bytes = request.rawBody;
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    request.bodyProblem = "invalid_json";
    return undefined;
  }
}
