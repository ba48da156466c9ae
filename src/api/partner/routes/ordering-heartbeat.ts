// POST /ordering/heartbeat (DESIGN §9), the dead-man's switch: `{timeoutSeconds}` from 5 to 300 arms
// (or re-arms) it to go off that long after the heartbeat's commit, 0 disarms it. When it goes off,
// one engine command cancels every open order of the session user (core/dead-mans-switch.ts); the
// deadline is core state, journaled, so a restart or a leader takeover keeps it.

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { HeartbeatRequest, HeartbeatResult } from "../../../contract/partner/market-making.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection } from "../errors.js";
import { requireSession } from "../session.js";

export default defineRoutes((app, deps) => {
  app.post(
    "/ordering/heartbeat",
    {
      schema: {
        summary: "Arm, re-arm or disarm the dead-man's switch",
        description:
          "`timeoutSeconds` from 5 to 300 arms (or re-arms) the switch to go off that many seconds after this heartbeat is committed; 0 disarms it; anything else is 400/1001. Answers `{armed, expiresAt}`. When it is armed and no heartbeat comes before `expiresAt`, every open order of the user is cancelled by one engine command (within the scheduler's half-second tick of the deadline), journaled, so a restart or a takeover keeps both the deadline and the cancel. A heartbeat that arrives after `expiresAt` is too late: the orders are cancelled first, then the switch is armed again.",
        tags: ["Ordering", "Market makers"],
        body: HeartbeatRequest,
        response: partnerResponses(HeartbeatResult),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const result = await deps.engine.submit({
        type: "Heartbeat",
        userId: request.user.userId,
        timeoutMs: request.body.timeoutSeconds * 1_000,
      });
      if (!result.ok) return sendRejection(reply, result.rejection);
      const armed = result.events.find((event) => event.type === "DeadMansSwitchArmed");
      // Millisecond precision: the deadline is the commit time plus the timeout, to the millisecond.
      return ok({
        armed: armed !== undefined,
        expiresAt: armed === undefined ? null : new Date(armed.expiresAtMs).toISOString(),
      });
    },
  );
});
