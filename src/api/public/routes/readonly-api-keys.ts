// GET /auth/validate-readonly-api-key?address=&key=, clob-client's validateReadonlyApiKey (no
// credentials). Polymarket issues read-only API keys to wallet addresses; predex has neither wallet
// accounts nor such keys (a partner's reads are signed by its own gateway keys), so no key is valid
// for any address: the answer is Polymarket's own refusal of an invalid key, 401, always.

import { Type } from "typebox";
import { defineRoutes } from "../../shared/typebox-app.js";
import {
  handlePolymarketError,
  PolymarketError,
  PolymarketFailure,
  polymarketErrors,
  sendPolymarketError,
} from "../polymarket/errors.js";
import { tag } from "../polymarket/schemas.js";

const invalidApiKey = new PolymarketFailure(401, polymarketErrors.invalidApiKey);

export default defineRoutes((app) => {
  app.setErrorHandler(handlePolymarketError);
  app.get(
    "/auth/validate-readonly-api-key",
    {
      schema: {
        summary: "Validate a read-only API key (none exist on predex)",
        description:
          "predex issues no Polymarket read-only API keys, so every key is invalid: always 401 `Unauthorized/Invalid api key`.",
        tags: [tag],
        querystring: Type.Object(
          { address: Type.Optional(Type.String()), key: Type.Optional(Type.String()) },
          { additionalProperties: true },
        ),
        // A query it cannot read (a parameter given twice) is the scope's 400, as on every read.
        response: { 400: PolymarketError, 401: PolymarketError },
      },
    },
    async (_request, reply) => sendPolymarketError(reply, invalidApiKey),
  );
});
