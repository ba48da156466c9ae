// POST /api/user/openapi/authorize (spec 001 "Authorize call"; DESIGN §8): signed headers checked
// by verifyAuthorizeRequest, then the body; creates or finds the merchant's user and returns a JWT.

import { Authorized, AuthorizeRequest } from "../../../contract/legacy/authorize.js";
import { legacyResponses, success } from "../../../contract/legacy/envelope.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { verifyAuthorizeRequest } from "../authentication.js";
import { legacyErrors, sendLegacyError } from "../errors.js";

export const authorizePath = "/api/user/openapi/authorize";

export default defineRoutes((app, deps) => {
  const services = app.legacyServices;
  app.post(
    authorizePath,
    {
      schema: {
        summary: "Authorize a user of the merchant and get a JWT",
        description:
          "Headers `X-API-KEY`, `X-Signature` (base64 SHA256withRSA, PKCS#1 v1.5, over `METHOD\\napplication/json\\npath?query\\nbody\\ntimestamp\\nnonce`), `X-Timestamp` (ms, ±5 min), `X-Nonce` (16–64 characters, never reused).",
        tags: ["User"],
        body: AuthorizeRequest,
        response: legacyResponses(Authorized),
      },
      preValidation: verifyAuthorizeRequest(deps, services),
    },
    async (request, reply) => {
      const partner = request.legacyPartner!;
      const { merchantId, marchantUserId, userEmail } = request.body;
      if (String(merchantId).trim() !== String(partner.partnerId)) {
        return sendLegacyError(reply, legacyErrors.merchantMismatch);
      }
      const user = await deps.identity.findOrCreateUser(partner.partnerId, marchantUserId, userEmail ?? null);
      const { token, expiresIn } = await services.tokens.issue(
        { userId: user.userId, merchantId: partner.partnerId },
        deps.nowMs(),
      );
      return success({ token, expiresIn, userId: user.userId });
    },
  );
});
