// The demo in one call: seed (idempotently) through the admin and signed APIs of a running
// platform, then start the market maker unless PREDEX_DEMO_BOT=0. Used by `predex serve --demo`,
// by `predex demo` against a running server, and by the end-to-end test.

import { PredexAdminClient } from "../sdk/admin-client.js";
import { PredexClient, type RetryPolicy } from "../sdk/client.js";
import type { GatewayCredentials } from "../sdk/signer.js";
import { loopbackUrlOf } from "./loopback.js";
import { type MarketMaker, startMarketMaker } from "./market-maker.js";
import { type DemoLog, type DemoSeed, errorMessage, type SeededMarket, seedDemo } from "./seed.js";

export interface DemoEndpoints {
  readonly adminUrl: string;
  readonly adminToken: string;
  /** The signed host; the demo uses it only through loopback. */
  readonly gatewayUrl: string;
}

export interface DemoPartnerCredentials extends GatewayCredentials {
  readonly merchantId: string;
}

export interface RunDemoOptions {
  /** Seeding notes (a model the platform refuses, a funding refused). */
  readonly log: DemoLog;
  /** The bot's refusals, at most once a minute each (default: log). */
  readonly botLog?: DemoLog;
  /** Start the market maker (default: yes; the CLI passes the configuration's demoBot, PREDEX_DEMO_BOT). */
  readonly bot?: boolean;
  readonly botTickMs?: number;
  readonly crossChance?: number;
  /** The bot's dead-man's switch timeout (default 30 s). */
  readonly heartbeatTimeoutSeconds?: number;
  readonly random?: () => number;
}

export interface RunningDemo {
  readonly seed: DemoSeed;
  /** The gateway URL the demo talks to (loopback). */
  readonly gatewayUrl: string;
  /** Undefined when the bot is disabled or there is no orderbook market to quote. */
  readonly bot: MarketMaker | undefined;
  /** A market to show a newcomer, and the CLOB token id of its Yes option (for /prices-history). */
  readonly example: { readonly market: SeededMarket; readonly yesAssetId: string | undefined } | undefined;
  /** Stops the bot (if any) and waits for its tick in flight. */
  stop(): Promise<void>;
}

/** Demo requests are cheap to repeat and must not hold a shutdown back for long. */
const demoRetryPolicy: RetryPolicy = { attemptsMax: 2, delayMsBase: 100, delayMsMax: 500 };
const demoRequestTimeoutMs = 5_000;

export async function runDemo(
  endpoints: DemoEndpoints,
  partner: DemoPartnerCredentials,
  options: RunDemoOptions,
): Promise<RunningDemo> {
  const gatewayUrl = loopbackUrlOf(endpoints.gatewayUrl);
  if (gatewayUrl === undefined) {
    throw new Error(`the demo talks only to a loopback gateway, and ${endpoints.gatewayUrl} is not one`);
  }
  const admin = new PredexAdminClient({
    baseUrl: endpoints.adminUrl,
    token: endpoints.adminToken,
    timeoutMs: demoRequestTimeoutMs,
  });
  const credentials: GatewayCredentials = {
    appKey: partner.appKey,
    appSecret: partner.appSecret,
    apiKey: partner.apiKey,
  };
  const seed = await seedDemo({
    admin,
    merchantId: partner.merchantId,
    log: options.log,
    newPartnerClient: () =>
      new PredexClient({
        baseUrl: gatewayUrl,
        credentials,
        retry: demoRetryPolicy,
        timeoutMs: demoRequestTimeoutMs,
      }),
  });
  const quoted = seed.markets.filter((market) => market.modelType === "orderbook");
  // An exclusive event's books are quoted one outcome each, under the one market id.
  const books = quoted.flatMap((market) =>
    (market.outcomes ?? [market]).map((outcome) => ({ ...outcome, marketId: market.marketId })),
  );
  const bot =
    (options.bot ?? true) && quoted.length > 0
      ? startMarketMaker({
          maker: seed.maker.client,
          taker: seed.taker.client,
          markets: books,
          log: options.botLog ?? options.log,
          ...(options.botTickMs === undefined ? {} : { tickMs: options.botTickMs }),
          ...(options.crossChance === undefined ? {} : { crossChance: options.crossChance }),
          ...(options.heartbeatTimeoutSeconds === undefined
            ? {}
            : { heartbeatTimeoutSeconds: options.heartbeatTimeoutSeconds }),
          ...(options.random === undefined ? {} : { random: options.random }),
        })
      : undefined;
  const exampleMarket = quoted[0] ?? seed.markets[0];
  const example =
    exampleMarket === undefined
      ? undefined
      : { market: exampleMarket, yesAssetId: await yesAssetIdOf(seed, exampleMarket, options.log) };
  return { seed, gatewayUrl, bot, example, stop: async () => bot?.stop() };
}

async function yesAssetIdOf(seed: DemoSeed, market: SeededMarket, log: DemoLog): Promise<string | undefined> {
  if (market.modelType !== "orderbook") return undefined;
  try {
    const book = await seed.maker.client.getBook({ marketId: market.marketId, outcomeId: market.outcomeId });
    return book.assetId;
  } catch (error) {
    log.warn(`demo: could not read the example market's book: ${errorMessage(error)}`);
    return undefined;
  }
}
