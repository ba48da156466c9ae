// Shared set-up of the legacy end-to-end tests: a real platform on port 0 (the trading fixture:
// operator client, markets, deposits), merchants with an RSA key pair and optionally a webhook,
// and legacy SDK clients that act for one user each.

import assert from "node:assert/strict";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { LegacyClient, type LegacyClientOptions } from "../../src/sdk/legacy/client.js";
import { LegacyApiError } from "../../src/sdk/legacy/errors.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform } from "../e2e/trading-fixtures.js";

export interface Merchant {
  readonly merchantId: string;
  readonly apiKey: string;
  readonly appKey: string;
  readonly appSecret: string;
  readonly webhookSecret: string;
  readonly privateKey: KeyObject;
  readonly privateKeyPem: string;
}

export interface LegacyPlatform extends TradingPlatform {
  /** A partner with a registered RSA public key (and the webhook URL and commission rate, when given). */
  createMerchant(options?: { webhookUrl?: string; commissionRate?: number }): Promise<Merchant>;
  /** A legacy client for a new user of the merchant (not authorized yet). */
  legacyClient(
    merchant: Merchant,
    options?: Partial<LegacyClientOptions> & { marchantUserId?: string },
  ): LegacyClient;
  /** An authorized client whose user holds `usdt` (deposited by the operator). */
  fundedLegacyUser(merchant: Merchant, usdt: string): Promise<LegacyClient>;
}

let userCounter = 0;
let depositCounter = 0;

export function rsaKeyPair(): { publicKeyPem: string; privateKeyPem: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    privateKey,
  };
}

export async function startLegacyPlatform(platformPromise = startTradingPlatform()): Promise<LegacyPlatform> {
  const platform = await platformPromise;
  const legacyClient: LegacyPlatform["legacyClient"] = (merchant, options = {}) => {
    userCounter += 1;
    const marchantUserId = options.marchantUserId ?? `legacy-user-${process.pid}-${userCounter}`;
    return new LegacyClient({
      baseUrl: platform.addresses.legacy,
      apiKey: merchant.apiKey,
      privateKey: merchant.privateKey,
      user: { merchantId: merchant.merchantId, marchantUserId, userEmail: `${marchantUserId}@example.com` },
      retry: { attemptsMax: 3, delayMsBase: 1, delayMsMax: 5 },
      ...options,
    });
  };
  return {
    ...platform,
    async createMerchant(options = {}) {
      const keys = rsaKeyPair();
      const created = (await platform.createPartner({
        rsaPublicKey: keys.publicKeyPem,
        ...(options.webhookUrl === undefined ? {} : { webhookUrl: options.webhookUrl }),
        ...(options.commissionRate === undefined ? {} : { commissionRate: options.commissionRate }),
      })) as unknown as Omit<Merchant, "privateKey" | "privateKeyPem">;
      return { ...created, privateKey: keys.privateKey, privateKeyPem: keys.privateKeyPem };
    },
    legacyClient,
    async fundedLegacyUser(merchant, usdt) {
      const client = legacyClient(merchant);
      const { userId } = await client.authorize();
      if (usdt !== "0") {
        depositCounter += 1;
        await platform.operator.deposit({
          userId: String(userId),
          amount: usdt,
          txHash: `0xlegacy-${process.pid}-${depositCounter}`,
        });
      }
      return client;
    },
  };
}

/** The legacy refusal a promise ends with, as [HTTP status, errorCode, msg]; fails if it is accepted. */
export async function refusal(promise: Promise<unknown>): Promise<[number, number | undefined, string]> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LegacyApiError) return [error.status, error.errorCode, error.msg];
    throw error;
  }
  throw new Error("accepted");
}

/**
 * Mints pairs through the legacy interface: `yesBuyer` rests a limit bid for Yes at `price`, then
 * `noBuyer` buys No at market against it; both orders must succeed.
 */
export async function mintPairs(
  market: BinaryMarket,
  yesBuyer: LegacyClient,
  noBuyer: LegacyClient,
  trade: { price: number; yesAmount: number; noAmount: number },
): Promise<void> {
  const order = {
    marketId: Number(market.marketId),
    outcomeId: Number(market.outcomeId),
    direction: "BUY",
  } as const;
  const bid = await yesBuyer.submitOrder({
    ...order,
    optionId: Number(market.yes),
    orderType: "LIMIT",
    price: trade.price,
    amount: trade.yesAmount,
  });
  assert.equal((await yesBuyer.waitForResult(bid)).status, "SUCCESS");
  const take = await noBuyer.submitOrder({
    ...order,
    optionId: Number(market.no),
    orderType: "MARKET",
    amount: trade.noAmount,
  });
  assert.equal((await noBuyer.waitForResult(take)).status, "SUCCESS");
}
