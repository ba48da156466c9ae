// GET /time, Polymarket-compatible: the server's clock in unix seconds, a bare JSON number (what
// clob-client's getServerTime returns and its useServerTime option signs with).

import { Type } from "typebox";
import { defineRoutes } from "../../shared/typebox-app.js";
import { tag } from "../polymarket/schemas.js";

export default defineRoutes((app, deps) => {
  app.get(
    "/time",
    {
      schema: {
        summary: "Server time, unix seconds",
        tags: [tag],
        response: { 200: Type.Integer({ description: "Unix seconds" }) },
      },
    },
    async () => Math.floor(deps.nowMs() / 1000),
  );
});
