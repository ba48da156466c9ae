// The earlier interface's envelope (spec 001): `{code, msg, data}` with `code` mirroring the HTTP
// status on errors. The legacy part of the platform extends this mapping; this is its skeleton.

import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

export interface LegacyError {
  readonly status: number;
  readonly code: number;
  readonly msg: string;
}

export function sendLegacyError(reply: FastifyReply, error: LegacyError): FastifyReply {
  return reply.code(error.status).type("application/json; charset=utf-8").send({
    code: error.code,
    msg: error.msg,
    data: null,
  });
}

export function handleLegacyError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error.validation !== undefined || (error.statusCode !== undefined && error.statusCode < 500)) {
    return sendLegacyError(reply, { status: 400, code: 400, msg: "parameter error" });
  }
  request.log.error({ err: error }, "unhandled error on the legacy surface");
  return sendLegacyError(reply, { status: 500, code: 500, msg: "internal server error" });
}

export function handleLegacyNotFound(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendLegacyError(reply, { status: 404, code: 404, msg: "not found" });
}
