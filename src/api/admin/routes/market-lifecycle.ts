// POST /admin/markets/{id}/resolve, /finalize, /void and /challenges (DESIGN §5): the operator's
// part of a market's end (src/core/lifecycle.ts). resolve proposes the winners of a closed market
// and starts the challenge window; finalize settles at once (corrected winners allowed); void
// returns everything. /challenges records a challenge a user filed with the operator (support,
// or a surface without its own route): the bond comes from that user's available balance.
// Every answer is the market detail of spec 000.

import { type Static, Type } from "typebox";
import { AdminMarketDetail, FlexibleId } from "../../../contract/admin.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import type { ExchangeCommand, WinnerChoice } from "../../../core/commands.js";
import { type Rejection, reject } from "../../../core/errors.js";
import {
  challengeReasonLengthMax,
  challengeWindowMsMax,
  challengeWindowMsMin,
} from "../../../core/exchange.js";
import { parseAtoms } from "../../../core/money.js";
import type { PlatformDeps } from "../../deps.js";
import { sendRejection } from "../../partner/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { loadAdminMarketDetail } from "../market-detail.js";

const millisecondsPerSecond = 1_000;
const Winners = Type.Array(Type.Object({ outcomeId: FlexibleId, winningOptionId: FlexibleId }), {
  minItems: 1,
  maxItems: 64,
  description:
    "The winning option of every outcome of the market; an exclusive market's names one outcome's Yes and every other outcome's No",
});

const ResolveRequest = Type.Object({
  outcomes: Winners,
  challengeWindowSeconds: Type.Optional(
    Type.Integer({
      minimum: challengeWindowMsMin / millisecondsPerSecond,
      maximum: challengeWindowMsMax / millisecondsPerSecond,
      description: "How long the result may be challenged; default 86400 (24 h)",
    }),
  ),
  challengeBondAmount: Type.Optional(
    Type.Union([Type.Number(), Type.String({ maxLength: 32 })], {
      description: "USDT a challenger posts; default 10",
    }),
  ),
  creatorId: Type.Optional(
    Type.Union([FlexibleId, Type.Null()], {
      description: "Set when the market's creator proposes the result; absent for the operator",
    }),
  ),
});
type ResolveRequest = Static<typeof ResolveRequest>;

const FinalizeRequest = Type.Union([Type.Object({ outcomes: Type.Optional(Winners) }), Type.Null()], {
  description: "Optional: corrected winners (for a challenged market); absent keeps the proposal",
});

const ChallengeRequest = Type.Object({
  userId: FlexibleId,
  reason: Type.Optional(Type.String({ maxLength: challengeReasonLengthMax })),
});

const MarketIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });

type Parsed<Value> = { ok: true; value: Value } | { ok: false; rejection: Rejection };

function winnersOf(outcomes: Static<typeof Winners>): Parsed<WinnerChoice[]> {
  const winners: WinnerChoice[] = [];
  for (const outcome of outcomes) {
    const outcomeId = parseId(outcome.outcomeId);
    if (outcomeId === undefined) return { ok: false, rejection: reject("OUTCOME_NOT_FOUND") };
    const winningOptionId = parseId(outcome.winningOptionId);
    if (winningOptionId === undefined) return { ok: false, rejection: reject("OPTION_NOT_FOUND") };
    winners.push({ outcomeId, winningOptionId });
  }
  return { ok: true, value: winners };
}

function resolveCommand(marketId: number, body: ResolveRequest): Parsed<ExchangeCommand> {
  const winners = winnersOf(body.outcomes);
  if (!winners.ok) return winners;
  let challengeBond: bigint | null = null;
  if (body.challengeBondAmount !== undefined) {
    const parsed = parseAtoms(body.challengeBondAmount);
    if (!parsed.ok) {
      return {
        ok: false,
        rejection:
          parsed.reason === "precision"
            ? reject("PRECISION_EXCEEDED", "challengeBondAmount has more than 8 decimal places")
            : reject("INVALID_INPUT", "challengeBondAmount must be a decimal number"),
      };
    }
    challengeBond = parsed.atoms;
  }
  let proposerId: number | null = null;
  if (body.creatorId !== undefined && body.creatorId !== null) {
    const creatorId = parseId(body.creatorId);
    if (creatorId === undefined) return { ok: false, rejection: reject("USER_NOT_FOUND") };
    proposerId = creatorId;
  }
  return {
    ok: true,
    value: {
      type: "ResolveMarket",
      marketId,
      proposerId,
      winners: winners.value,
      challengeWindowMs:
        body.challengeWindowSeconds === undefined
          ? null
          : body.challengeWindowSeconds * millisecondsPerSecond,
      challengeBond,
    },
  };
}

/** Submits a lifecycle command and answers the market's detail after its commit. */
async function submitAndDescribe(deps: PlatformDeps, marketId: number, command: ExchangeCommand) {
  const result = await deps.engine.submit(command);
  if (!result.ok) return { ok: false as const, rejection: result.rejection };
  const detail = await loadAdminMarketDetail(deps, marketId);
  if (detail === undefined) return { ok: false as const, rejection: reject("MARKET_NOT_FOUND") };
  return { ok: true as const, detail };
}

export default defineRoutes((app, deps) => {
  app.post(
    "/admin/markets/:id/resolve",
    {
      schema: {
        summary: "Propose the result of a closed market",
        description:
          "The market becomes `resolving` and a challenge window starts (default 24 h). Without a challenge, the scheduler settles it when the window ends; `/finalize` settles it at once.",
        tags: ["Markets"],
        params: MarketIdParams,
        body: ResolveRequest,
        response: partnerResponses(AdminMarketDetail),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.id);
      if (marketId === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      const command = resolveCommand(marketId, request.body);
      if (!command.ok) return sendRejection(reply, command.rejection);
      const answer = await submitAndDescribe(deps, marketId, command.value);
      return answer.ok ? ok(answer.detail) : sendRejection(reply, answer.rejection);
    },
  );

  app.post(
    "/admin/markets/:id/finalize",
    {
      schema: {
        summary: "Settle a resolving market now",
        description:
          "Ends any challenge window early. `outcomes` corrects the winners (after a challenge); a challenger's bond is returned when the result differs from the proposal, else forfeited to the market's fee income.",
        tags: ["Markets"],
        params: MarketIdParams,
        body: Type.Optional(FinalizeRequest),
        response: partnerResponses(AdminMarketDetail),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.id);
      if (marketId === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      let winners: WinnerChoice[] | null = null;
      const outcomes = request.body?.outcomes;
      if (outcomes !== undefined) {
        const parsed = winnersOf(outcomes);
        if (!parsed.ok) return sendRejection(reply, parsed.rejection);
        winners = parsed.value;
      }
      const answer = await submitAndDescribe(deps, marketId, { type: "FinalizeMarket", marketId, winners });
      return answer.ok ? ok(answer.detail) : sendRejection(reply, answer.rejection);
    },
  );

  app.post(
    "/admin/markets/:id/void",
    {
      schema: {
        summary: "Void a market that is not settled",
        description:
          "Resting orders are cancelled, a challenger's bond comes back, and every share becomes claimable at 0.5 USDT (in an exclusive market of n outcomes: a Yes share 1/n, a No share (n − 1)/n).",
        tags: ["Markets"],
        params: MarketIdParams,
        response: partnerResponses(AdminMarketDetail),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.id);
      if (marketId === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      const answer = await submitAndDescribe(deps, marketId, { type: "VoidMarket", marketId });
      return answer.ok ? ok(answer.detail) : sendRejection(reply, answer.rejection);
    },
  );

  app.post(
    "/admin/markets/:id/challenges",
    {
      schema: {
        summary: "Record a user's challenge of a proposed result",
        description:
          "Only while the market is resolving and its window is open, once per market; the bond is frozen from the user's available balance.",
        tags: ["Markets"],
        params: MarketIdParams,
        body: ChallengeRequest,
        response: partnerResponses(AdminMarketDetail),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.id);
      if (marketId === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      const userId = parseId(request.body.userId);
      const user = userId === undefined ? undefined : await deps.identity.findUser(userId);
      if (userId === undefined || user === undefined) return sendRejection(reply, reject("USER_NOT_FOUND"));
      const answer = await submitAndDescribe(deps, marketId, {
        type: "ChallengeResolution",
        marketId,
        userId,
        reason: request.body.reason ?? "",
      });
      return answer.ok ? ok(answer.detail) : sendRejection(reply, answer.rejection);
    },
  );
});
