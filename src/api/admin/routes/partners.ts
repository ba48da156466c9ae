// POST /admin/partners: creates a partner and shows its secrets once (DESIGN §5).

import { createPublicKey } from "node:crypto";
import { type Static, Type } from "typebox";
import { NonEmptyString, ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { reject } from "../../../core/errors.js";
import type { CreatePartnerInput } from "../../../identity/service.js";
import { sendRejection } from "../../partner/errors.js";
import { HttpUrl } from "../../shared/http-url.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const commissionRateBpsMax = 10_000;

const CreatePartnerRequest = Type.Object({
  name: Type.Optional(NonEmptyString({ maxLength: 64, description: "Unique display name" })),
  rsaPublicKey: Type.Optional(
    Type.String({ maxLength: 16_384, description: "PEM public key for the legacy authorize call" }),
  ),
  commissionRate: Type.Optional(
    Type.Union([Type.Number(), Type.String({ maxLength: 16 })], {
      description: "Share of its users' fees the partner earns, 0 to 1 (at most 4 decimals)",
    }),
  ),
  webhookUrl: Type.Optional(HttpUrl("http(s) URL for merchant webhooks")),
});
type CreatePartnerRequest = Static<typeof CreatePartnerRequest>;

const CreatedPartner = Type.Object({
  merchantId: Type.String(),
  appKey: Type.String(),
  appSecret: Type.String({ description: "Shown once; stored encrypted" }),
  apiKey: Type.String({ description: "Shown once; stored as a hash" }),
  webhookSecret: Type.String({
    description: "Verifies merchant webhooks (Standard Webhooks `whsec_…`); shown once",
  }),
});

export default defineRoutes((app, deps) => {
  app.post(
    "/admin/partners",
    {
      schema: {
        summary: "Create a partner",
        tags: ["Partners"],
        body: CreatePartnerRequest,
        response: partnerResponses(CreatedPartner),
      },
    },
    async (request, reply) => {
      const input = createPartnerInput(request.body);
      if (!input.ok) return sendRejection(reply, reject("INVALID_INPUT", input.message));
      const result = await deps.identity.createPartner(input.value);
      if (!result.ok) return sendRejection(reply, result.rejection);
      return ok(result.value);
    },
  );
});

type Parsed<Value> = { ok: true; value: Value } | { ok: false; message: string };

function createPartnerInput(body: CreatePartnerRequest): Parsed<CreatePartnerInput> {
  const input: { -readonly [Key in keyof CreatePartnerInput]: CreatePartnerInput[Key] } = {};
  if (body.name !== undefined) input.name = body.name.trim();
  if (body.rsaPublicKey !== undefined) {
    try {
      createPublicKey(body.rsaPublicKey);
    } catch {
      return { ok: false, message: "rsaPublicKey must be a PEM public key" };
    }
    input.rsaPublicKey = body.rsaPublicKey;
  }
  if (body.commissionRate !== undefined) {
    const bps = commissionRateToBps(body.commissionRate);
    if (bps === undefined)
      return { ok: false, message: "commissionRate must be between 0 and 1 with at most 4 decimals" };
    input.commissionRateBps = bps;
  }
  if (body.webhookUrl !== undefined) input.webhookUrl = body.webhookUrl;
  return { ok: true, value: input };
}

/** Basis points keep the rate exact; 0.0125 becomes 125. */
function commissionRateToBps(rate: number | string): number | undefined {
  const text = String(rate).trim();
  const match = /^(0|1)(?:\.(\d{1,4}))?$/.exec(text) ?? /^()\.(\d{1,4})$/.exec(text);
  if (match === null) return undefined;
  const bps = Number(match[1] || "0") * commissionRateBpsMax + Number((match[2] ?? "").padEnd(4, "0"));
  return bps <= commissionRateBpsMax ? bps : undefined;
}
