// The earlier interface's envelope (spec 001 "Envelope"): `{code: 200, msg: "success", data}` on
// success; on an error `code` mirrors the HTTP status and `data` carries `errorCode` (errors.ts).

import { type TSchema, Type } from "typebox";

/** Larger page sizes are capped to this (spec 001 "Limits"). */
export const legacyPageSizeMax = 100;

export const LegacyErrorEnvelope = Type.Object(
  {
    code: Type.Integer({ description: "The HTTP status" }),
    msg: Type.String({ description: "The message of spec 001's error table" }),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "`errorCode` (spec 001's specific code, or the HTTP status when there is none) and details such as `field`; on 429 exactly `{retryAfter, limit, window}`",
      },
    ),
  },
  { description: "Error" },
);

export function LegacyEnvelope<Data extends TSchema>(data: Data) {
  return Type.Object({ code: Type.Integer(), msg: Type.String(), data });
}

export interface LegacyOkEnvelope<Data> {
  code: 200;
  msg: "success";
  data: Data;
}

export function success<Data>(data: Data): LegacyOkEnvelope<Data> {
  return { code: 200, msg: "success", data };
}

/** Response schemas for a route: its success data and every error status the surface gives. */
export function legacyResponses<Data extends TSchema>(data: Data) {
  return {
    200: LegacyEnvelope(data),
    400: LegacyErrorEnvelope,
    401: LegacyErrorEnvelope,
    403: LegacyErrorEnvelope,
    404: LegacyErrorEnvelope,
    422: LegacyErrorEnvelope,
    429: LegacyErrorEnvelope,
    500: LegacyErrorEnvelope,
    503: LegacyErrorEnvelope,
  };
}
