// What the HTTP benches set up inside the server process before measuring: a partner, its users
// and open order-book markets. Any failure stops the bench, since figures from a half-built
// platform would mean nothing.

import type { PlatformDeps } from "../../src/api/deps.js";
import type { MarketCreatedEvent } from "../../src/core/events.js";
import type { AuthenticatedPartner, CreatedPartner, RegisterInput } from "../../src/identity/service.js";

export interface BenchPartner {
  /** What the load generator signs with (appKey, appSecret, apiKey) and the merchant id. */
  readonly credentials: CreatedPartner;
  readonly partner: AuthenticatedPartner;
}

/** A partner of the bench; names are unique, so a second one needs a name of its own. */
export async function createBenchPartner(deps: PlatformDeps, name = "bench"): Promise<BenchPartner> {
  const created = await deps.identity.createPartner({ name });
  if (!created.ok) throw new Error("could not create the bench partner");
  const partner = await deps.identity.lookupAppKey(created.value.appKey);
  return { credentials: created.value, partner: partner! };
}

/** Registers a user of the bench partner and returns its id and session token. */
export async function registerBenchUser(
  deps: PlatformDeps,
  bench: BenchPartner,
  user: Pick<RegisterInput, "userEmail" | "marchantUserId">,
): Promise<{ userId: number; sessionToken: string }> {
  const registered = await deps.identity.register(bench.partner, {
    merchantId: bench.credentials.merchantId,
    ...user,
  });
  if (!registered.ok) throw new Error(`could not register the bench user ${user.marchantUserId}`);
  return { userId: registered.value.user.userId, sessionToken: registered.value.sessionToken };
}

/**
 * Creates and opens a one-outcome order-book market (maker 10 bps, taker 20 bps) that started a
 * minute ago and ends in a day, so no scheduled close falls inside a bench run.
 */
export async function createOpenBenchMarket(
  deps: PlatformDeps,
  market: { title: string; outcomeName: string; details: Record<string, unknown> },
): Promise<MarketCreatedEvent> {
  const created = await deps.engine.submit({
    type: "CreateMarket",
    title: market.title,
    modelType: "orderbook",
    outcomes: [{ name: market.outcomeName, options: null }],
    tickSize: null,
    minOrderSize: null,
    makerFeeBps: 10,
    takerFeeBps: 20,
    marketOrderPriceProtection: null,
    limitOrderPriceProtection: null,
    startTimeMs: Date.now() - 60_000,
    endTimeMs: Date.now() + 86_400_000,
    creatorId: null,
    details: market.details,
  });
  if (!created.ok || created.events[0]?.type !== "MarketCreated")
    throw new Error("could not create a market");
  const opened = await deps.engine.submit({ type: "OpenMarket", marketId: created.events[0].marketId });
  if (!opened.ok) throw new Error("could not open a market");
  return created.events[0];
}
