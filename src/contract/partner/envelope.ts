// The current interface's envelope (spec 000): `{code: 0, message: "ok", data}` on success and
// `{code, message, data: null}` on a service error, with a response schema for every status.

import { type TSchema, Type } from "typebox";

export const ErrorEnvelope = Type.Object(
  {
    code: Type.Integer({
      description:
        "Business code: 1001, 1401, 1404, 1415, 9999, 2002 (nothing was done: retry), 2001 (outcome unknown: reconcile first), …",
    }),
    message: Type.String({
      description: "Prefixed: `bad request: `, `unauthorized: `, `resource not found: `",
    }),
    data: Type.Null(),
  },
  { description: "Service error" },
);

export function Envelope<Data extends TSchema>(data: Data) {
  // code and message are plain integer/string, not literals: the serializer writes a literal's value
  // whatever the payload says, and 4054 answers also travel with HTTP 200.
  return Type.Object({ code: Type.Integer(), message: Type.String(), data });
}

export interface OkEnvelope<Data> {
  code: 0;
  message: "ok";
  data: Data;
}

export function ok<Data>(data: Data): OkEnvelope<Data> {
  return { code: 0, message: "ok", data };
}

/** Response schemas for a route: its success data plus every error status the surface can give. */
export function partnerResponses<Data extends TSchema>(data: Data) {
  return {
    200: Envelope(data),
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    404: ErrorEnvelope,
    415: ErrorEnvelope,
    500: ErrorEnvelope,
    // 2002: nothing was done, try again (Retry-After); 2001: the outcome is unknown (Retry-After).
    502: ErrorEnvelope,
    504: ErrorEnvelope,
  };
}

/** Non-empty string: at least one character that is not white space. */
export function NonEmptyString(options: { maxLength: number; description?: string }) {
  return Type.String({ minLength: 1, pattern: "\\S", ...options });
}

/** Ids are numeric inside and decimal strings on the current interface. */
export const IdString = Type.String({ pattern: "^[0-9]+$", description: "Numeric id as a string" });
