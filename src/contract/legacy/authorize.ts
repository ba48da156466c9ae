// POST /api/user/openapi/authorize (spec 001 "Authorize request body"; DESIGN §8 for the response).

import { type Static, Type } from "typebox";

const FreeString = (description: string, maxLength = 64) => Type.String({ maxLength, description });

export const AuthorizeRequest = Type.Object({
  marchantUserId: Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: "\\S",
    description: "The merchant's own id for the user (spelled so)",
  }),
  merchantId: Type.Union([Type.String({ minLength: 1, maxLength: 32 }), Type.Integer({ minimum: 1 })], {
    description: "The merchant of the API key",
  }),
  userEmail: Type.Optional(FreeString("The user's e-mail; kept when omitted", 254)),
  userType: Type.Optional(FreeString("Free text; default NORMAL")),
  coinType: Type.Optional(FreeString("Free text; default USDT (the only currency)")),
  currency: Type.Optional(FreeString("Free text; default USD")),
});
export type AuthorizeRequest = Static<typeof AuthorizeRequest>;

export const Authorized = Type.Object({
  token: Type.String({ description: "JWT for `Authorization: Bearer …`" }),
  expiresIn: Type.Integer({ description: "Seconds: 86400" }),
  userId: Type.Integer(),
});
export type Authorized = Static<typeof Authorized>;
