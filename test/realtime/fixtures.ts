// Shared set-up of the realtime tests: a real platform with short realtime intervals, an operator
// client, opened binary markets and funded users, and small helpers to open raw sockets.

import { WebSocket } from "ws";
import { computeContentMd5, computeSignature } from "../../src/contract/signing/gateway-signature.js";
import {
  buildStringToSign,
  canonicalPathAndQuery,
  formatGatewayDate,
} from "../../src/contract/signing/string-to-sign.js";
import type { RealtimeLimits } from "../../src/realtime/limits.js";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import type { PredexClient } from "../../src/sdk/client.js";
import { type GatewayCredentials, type QueryParams, signWebSocketUpgrade } from "../../src/sdk/signer.js";
import { type PartnerCredentials, startTestPlatform, type TestPlatform } from "../e2e/harness.js";

export interface RealtimePlatform extends TestPlatform {
  readonly operator: PredexAdminClient;
  readonly partner: PartnerCredentials;
  openMarket(title?: string): Promise<{
    marketId: string;
    outcomeId: string;
    yes: string;
    no: string;
    yesAsset: string;
    noAsset: string;
  }>;
  createDraftMarket(title?: string): Promise<{ marketId: string; outcomeId: string }>;
  fundedUser(usdt?: string): Promise<{ client: PredexClient; userId: string }>;
}

const hourMs = 3_600_000;
let counter = 0;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

export async function startRealtimePlatform(
  realtime: Partial<RealtimeLimits> = {},
  nowMs?: () => number,
): Promise<RealtimePlatform> {
  const platform = await startTestPlatform({
    platform: { realtime, ...(nowMs === undefined ? {} : { nowMs }) },
  });
  const operator = new PredexAdminClient({
    baseUrl: platform.addresses.admin,
    token: platform.platform.adminToken,
  });
  const partner = await platform.createPartner();
  // Markets are filed under a category that exists (POST /admin/markets checks it).
  const category = await operator.createCategory({ name: "Realtime" });
  const create = (title: string) =>
    operator.createMarket({
      title,
      categoryId: category.id,
      startTime: iso(Date.now() - hourMs),
      endTime: iso(Date.now() + 24 * hourMs),
      outcomes: [{ name: title, options: [{ title: "Yes" }, { title: "No" }] }],
    });
  return {
    ...platform,
    operator,
    partner,
    async createDraftMarket(title = "Draft market") {
      const detail = await create(title);
      return { marketId: detail.marketId, outcomeId: detail.outcomes[0]!.outcomeId };
    },
    async openMarket(title = "Will it rain in Paris tomorrow?") {
      const created = await create(title);
      const detail = await operator.openMarket(created.marketId);
      const outcome = detail.outcomes[0]!;
      const holders = await platform.platform.deps.engine.read((state) =>
        outcome.options.map((option) => state.options.get(Number(option.optionId))!.assetId),
      );
      return {
        marketId: detail.marketId,
        outcomeId: outcome.outcomeId,
        yes: outcome.options[0]!.optionId,
        no: outcome.options[1]!.optionId,
        yesAsset: holders[0]!,
        noAsset: holders[1]!,
      };
    },
    async fundedUser(usdt = "100000") {
      const { client, user } = await platform.registeredUser({ partner });
      counter += 1;
      await operator.deposit({
        userId: user.userId,
        amount: usdt,
        txHash: `0xrealtime-${process.pid}-${counter}`,
      });
      return { client, userId: user.userId };
    },
  };
}

export interface OpenedSocket {
  readonly socket?: WebSocket;
  /** Every message since the socket was created (a message can arrive with the 101 itself). */
  readonly inbox?: Inbox;
  readonly status?: number;
  readonly body?: string;
}

/** Opens a socket; resolves when it is open (with a message queue) or with the refused handshake. */
export function openSocket(url: string, headers: Record<string, string> = {}): Promise<OpenedSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const inbox = collect(socket);
    socket.on("open", () => resolve({ socket, inbox }));
    socket.on("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.on("error", reject);
  });
}

/** A signed upgrade to a channel of the signed host. */
export function openSigned(
  platform: TestPlatform,
  credentials: GatewayCredentials,
  path: string,
  options: { query?: QueryParams; cookie?: string; headers?: Record<string, string> } = {},
): Promise<OpenedSocket> {
  const signed = signWebSocketUpgrade(credentials, {
    path,
    ...(options.query === undefined ? {} : { query: options.query }),
    ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
  });
  const url = new URL(signed.pathAndQuery, platform.addresses.gateway.replace(/^http/, "ws")).href;
  return openSocket(url, { ...signed.headers, ...options.headers });
}

export type Inbox = ReturnType<typeof collect>;

/** Collects a socket's JSON messages; `next` waits for the first one matching. */
export function collect(socket: WebSocket) {
  const messages: unknown[] = [];
  const waiters: { match: (message: unknown) => boolean; resolve: (message: unknown) => void }[] = [];
  socket.on("message", (data) => {
    const text = String(data);
    let message: unknown = text;
    try {
      message = JSON.parse(text);
    } catch {}
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.match(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  return {
    messages,
    next<T = Record<string, unknown>>(
      match: (message: T) => boolean = () => true,
      timeoutMs = 5_000,
    ): Promise<T> {
      const found = messages.find((message) => match(message as T));
      if (found !== undefined) {
        messages.splice(messages.indexOf(found), 1);
        return Promise.resolve(found as T);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no matching message in time")), timeoutMs);
        waiters.push({
          match: (message) => match(message as T),
          resolve: (message) => {
            clearTimeout(timer);
            messages.splice(messages.indexOf(message), 1);
            resolve(message as T);
          },
        });
      });
    },
  };
}

export function closed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
}

/**
 * A correctly signed upgrade that carries no x-api-key at all (the SDK always signs one), so the
 * gate's own "Missing X-API-KEY header" answer can be seen.
 */
export function openSignedWithoutApiKey(
  platform: TestPlatform,
  credentials: GatewayCredentials,
  path: string,
  query: Record<string, string>,
  cookie?: string,
): Promise<OpenedSocket> {
  const pairs = Object.entries(query);
  const date = formatGatewayDate(new Date());
  const signedHeaders: Array<[string, string]> = cookie === undefined ? [] : [["cookie", cookie]];
  const stringToSign = buildStringToSign({
    method: "GET",
    accept: "application/json",
    contentMd5: computeContentMd5(undefined),
    contentType: "",
    date,
    signedHeaders,
    pathAndQuery: canonicalPathAndQuery(path, pairs),
  });
  const search = pairs.length === 0 ? "" : `?${new URLSearchParams(pairs).toString()}`;
  const url = new URL(path + search, platform.addresses.gateway.replace(/^http/, "ws")).href;
  return openSocket(url, {
    accept: "application/json",
    date,
    "x-ca-key": credentials.appKey,
    "x-ca-signature": computeSignature(credentials.appSecret, stringToSign),
    "x-ca-signature-headers": signedHeaders.map(([name]) => name).join(","),
    ...(cookie === undefined ? {} : { cookie }),
  });
}
