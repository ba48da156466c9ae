// Shared set-up of the wallet end-to-end tests: a real platform on port 0 whose clock (the API's,
// the engine's and the SDK's signing clock) is a fake one the tests move, so TOTP steps and ticket
// expiry pass without waiting; the operator's client; users funded by admin deposits; TOTP codes
// computed here from the secret with otplib, as an authenticator app would.

import assert from "node:assert/strict";
import { generateSync } from "otplib";
import type { RegisteredUser } from "../../src/contract/partner/users.js";
import { type AdminWithdrawal, PredexAdminClient } from "../../src/sdk/admin-client.js";
import type { PredexClient } from "../../src/sdk/client.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import { signRequest } from "../../src/sdk/signer.js";
import type { PlatformOptions } from "../../src/server.js";
import {
  type PartnerCredentials,
  type RawResponse,
  startTestPlatform,
  type TestPlatform,
} from "./harness.js";

/** One TOTP step: moving the clock by it makes the next code usable (a code works once per step). */
export const totpStepMs = 30_000;
const hourMs = 3_600_000;

export interface WalletUser {
  readonly client: PredexClient;
  readonly user: RegisteredUser;
  readonly userId: string;
}

export interface WalletPlatform extends TestPlatform {
  readonly operator: PredexAdminClient;
  readonly partner: PartnerCredentials;
  /** The fake clock, ms since the epoch. */
  now(): number;
  advance(ms: number): void;
  /** A registered user of `partner`; `usdt` deposited unless "0". */
  user(usdt?: string): Promise<WalletUser>;
  /** Credits a deposit with a fresh txHash. */
  deposit(walletUser: WalletUser, usdt: string): Promise<void>;
  /** Turns TOTP on; returns the secret. */
  enableTotp(walletUser: WalletUser): Promise<string>;
  /** A withdraw ticket from a TOTP code of the next step. */
  ticket(walletUser: WalletUser, secret: string): Promise<string>;
  /** A correctly signed request as the SDK would send it (at the fake clock), answered raw. */
  call(
    walletUser: WalletUser | undefined,
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string; query?: Record<string, string> },
  ): Promise<RawResponse>;
  /** A binary orderbook market, created and opened; its ids. */
  openMarket(): Promise<{ marketId: string; outcomeId: string; yes: string; no: string }>;
}

let txCounter = 0;

export async function startWalletPlatform(
  options: Omit<PlatformOptions, "nowMs"> = {},
): Promise<WalletPlatform> {
  // Mid-step of a 30-second TOTP period, near the real time (the harness signs some requests with it).
  let clockMs = Math.floor(Date.now() / totpStepMs) * totpStepMs + 15_000;
  const platform = await startTestPlatform({ platform: { ...options, nowMs: () => clockMs } });
  const operator = new PredexAdminClient({
    baseUrl: platform.addresses.admin,
    token: platform.platform.adminToken,
  });
  const partner = await platform.createPartner();
  const category = await operator.createCategory({ name: "Wallet tests" });

  const deposit = async (walletUser: WalletUser, usdt: string) => {
    txCounter += 1;
    await operator.deposit({
      userId: walletUser.userId,
      amount: usdt,
      txHash: `0xwallet-${process.pid}-${txCounter}`,
    });
  };

  return {
    ...platform,
    operator,
    partner,
    now: () => clockMs,
    advance(ms) {
      clockMs += ms;
    },
    async user(usdt = "0") {
      const { client, user } = await platform.registeredUser({
        partner,
        client: { now: () => new Date(clockMs) },
      });
      const walletUser = { client, user, userId: user.userId };
      if (usdt !== "0") await deposit(walletUser, usdt);
      return walletUser;
    },
    deposit,
    async enableTotp(walletUser) {
      const setup = await walletUser.client.setupTotp();
      await walletUser.client.enableTotp(totpCode(setup.secret, clockMs));
      return setup.secret;
    },
    async ticket(walletUser, secret) {
      clockMs += totpStepMs;
      const issued = await walletUser.client.verifyMfa({ method: "totp", code: totpCode(secret, clockMs) });
      return issued.ticket;
    },
    async call(walletUser, method, path, options = {}) {
      const text = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
      const bytes = text === undefined ? undefined : Buffer.from(text, "utf8");
      const signed = signRequest(partner, {
        method,
        path,
        date: new Date(clockMs),
        ...(options.query === undefined ? {} : { query: options.query }),
        ...(bytes === undefined ? {} : { body: bytes }),
        ...(walletUser?.client.sessionCookie === undefined
          ? {}
          : { cookie: walletUser.client.sessionCookie }),
      });
      return platform.raw("gateway", {
        method,
        path: signed.pathAndQuery,
        headers: signed.headers,
        ...(bytes === undefined ? {} : { body: bytes }),
      });
    },
    async openMarket() {
      const created = await operator.createMarket({
        title: "Will the wallet tests pass?",
        categoryId: category.id,
        startTime: isoAt(clockMs - hourMs),
        endTime: isoAt(clockMs + 24 * hourMs),
        outcomes: [{ name: "Pass", options: [{ title: "Yes" }, { title: "No" }] }],
      });
      const detail = await operator.openMarket(created.marketId);
      const outcome = detail.outcomes[0]!;
      return {
        marketId: detail.marketId,
        outcomeId: outcome.outcomeId,
        yes: outcome.options[0]!.optionId,
        no: outcome.options[1]!.optionId,
      };
    },
  };
}

export function totpCode(secret: string, atMs: number): string {
  return generateSync({ secret, epoch: Math.floor(atMs / 1000) });
}

function isoAt(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The session user's USDT as decimal strings. */
export async function usdtOf(
  client: PredexClient,
): Promise<{ available: string; frozen: string; total: string }> {
  const [asset] = await client.getAssets();
  assert.ok(asset !== undefined, "no USDT asset");
  assert.equal(asset.coinId, "2");
  return { available: asset.available, frozen: asset.frozen, total: asset.total };
}

/** A service error exactly as the spec shapes it: status, code, message, `data: null`. */
export function assertError(response: RawResponse, status: number, code: number, message: string): void {
  assert.equal(response.status, status, response.text);
  const body = response.json as { code: number; message: string; data: unknown };
  assert.deepEqual(Object.keys(body).sort(), ["code", "data", "message"]);
  assert.deepEqual([body.code, body.message, body.data], [code, message, null]);
}

/** The same through the SDK: the promise rejects with this status, code and message. */
export async function assertRejects(
  promise: Promise<unknown>,
  status: number,
  code: number,
  message: string,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PredexApiError, String(error));
    assert.deepEqual([error.status, error.code, error.message], [status, code, message]);
    return true;
  });
}

export type { AdminWithdrawal };
