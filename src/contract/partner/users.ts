// Schemas of the user operations (spec 000 "Registration request"; DESIGN §8 for the profiles).

import { type Static, Type } from "typebox";
import { IdString, NonEmptyString } from "./envelope.js";

export const RegisterRequest = Type.Object({
  userEmail: NonEmptyString({ maxLength: 254, description: "The user's e-mail address" }),
  merchantId: NonEmptyString({ maxLength: 32, description: "The calling partner's merchantId" }),
  marchantUserId: NonEmptyString({
    maxLength: 128,
    description: "The partner's own id for the user (spelled so)",
  }),
});
export type RegisterRequest = Static<typeof RegisterRequest>;

export const RegisteredUser = Type.Object({
  userId: IdString,
  userName: Type.String(),
  email: Type.String(),
});
export type RegisteredUser = Static<typeof RegisteredUser>;

export const UserIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });

export const PublicUser = Type.Object({
  userId: IdString,
  userName: Type.String(),
  avatarUrl: Type.String(),
});
export type PublicUser = Static<typeof PublicUser>;

export const UserProfile = Type.Object({
  userId: IdString,
  userName: Type.String(),
  email: Type.String(),
  merchantId: IdString,
  marchantUserId: Type.String(),
  avatarUrl: Type.String(),
  mfaEnabled: Type.Boolean(),
  createdAt: Type.String({ description: "ISO 8601 UTC" }),
});
export type UserProfile = Static<typeof UserProfile>;
