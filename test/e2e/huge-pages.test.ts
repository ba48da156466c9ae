// Every paginated route of the four listeners treats a page far past the end the same way: an
// empty page (200), never a 500 from the database. `1e20`, `1e308` and a 21-digit page number are
// all pages no table has; the signed host additionally wants integer literals in a query string,
// so there `1e20` is its usual text/plain 400.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PredexClient } from "../../src/sdk/client.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import type { LegacyClient } from "../../src/sdk/legacy/client.js";
import { LegacyApiError } from "../../src/sdk/legacy/errors.js";
import { type LegacyPlatform, type Merchant, startLegacyPlatform } from "../legacy/fixtures.js";

let platform: LegacyPlatform;
let merchant: Merchant;
let gateway: PredexClient;
let legacy: LegacyClient;
let legacyUserId: number;
before(async () => {
  platform = await startLegacyPlatform();
  merchant = await platform.createMerchant();
  gateway = (await platform.fundedUser("10")).client;
  legacy = platform.legacyClient(merchant, { marchantUserId: "huge-pages" });
  legacyUserId = (await legacy.authorize()).userId;
});
after(() => platform.close());

/** Page values as sent: a query string carries the text, a JSON body the number. */
const hugePages = [
  { query: "1e20", json: 1e20 },
  { query: "1e308", json: 1e308 },
  { query: "100000000000000000000", json: 100000000000000000000 },
];

interface Answer {
  readonly status: number;
  /** The records of the page, when the answer is a 200. */
  readonly records?: readonly unknown[];
}

async function partnerAnswer(
  method: "GET" | "POST",
  path: string,
  page: { query: string; json: number },
  extra: Record<string, string> = {},
): Promise<Answer> {
  try {
    const envelope =
      method === "GET"
        ? await gateway.requestEnvelope<unknown>("GET", path, { query: { ...extra, page: page.query } })
        : await gateway.requestEnvelope<unknown>("POST", path, { body: { page: page.json } });
    return { status: 200, records: recordsOf(envelope.data) };
  } catch (error) {
    if (error instanceof PredexApiError) return { status: error.status };
    throw error;
  }
}

async function legacyAnswer(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer> {
  try {
    const envelope = await legacy.requestEnvelope<unknown>(method, path, {
      ...(body === undefined ? {} : { body }),
      idempotent: true,
    });
    return { status: 200, records: recordsOf(envelope.data) };
  } catch (error) {
    if (error instanceof LegacyApiError) return { status: error.status };
    throw error;
  }
}

async function adminAnswer(path: string): Promise<Answer> {
  const response = await platform.admin("GET", path);
  const data = (response.json as { data?: unknown } | undefined)?.data;
  return { status: response.status, ...(response.status === 200 ? { records: recordsOf(data) } : {}) };
}

function recordsOf(data: unknown): readonly unknown[] {
  if (Array.isArray(data)) return data;
  const records = (data as { records?: unknown[] } | null)?.records;
  assert.ok(Array.isArray(records), `a page: ${JSON.stringify(data)}`);
  return records;
}

function assertEmptyPage(answer: Answer, route: string, page: string): void {
  assert.equal(answer.status, 200, `${route} page=${page}`);
  assert.deepEqual(answer.records, [], `${route} page=${page}`);
}

describe("a page number far past the end", () => {
  it("is an empty page on every paginated route of the signed host", async () => {
    const routes: Array<[string, Record<string, string>?]> = [
      ["/markets/list"],
      ["/search", { keyword: "rain" }],
      ["/trades"],
      ["/account/history"],
      ["/account/positions"],
      ["/deposit/history"],
      ["/withdraw/history"],
    ];
    for (const page of hugePages) {
      for (const [path, extra] of routes) {
        const answer = await partnerAnswer("GET", path, page, extra);
        // An exponent is not an integer literal: the signed host's query rule (text/plain 400).
        if (page.query.includes("e")) assert.equal(answer.status, 400, `${path} page=${page.query}`);
        else assertEmptyPage(answer, path, page.query);
      }
      assertEmptyPage(await partnerAnswer("POST", "/ordering/open-orders", page), "open-orders", page.query);
    }
  });

  it("is an empty page on every paginated route of the legacy host", async () => {
    const period = Number(new Date().toISOString().slice(0, 7).replace("-", ""));
    for (const page of hugePages) {
      const routes: Array<[string, "GET" | "POST", string, unknown?]> = [
        ["positions", "POST", "/api/order/openapi/positions", { page: page.json }],
        ["activity", "GET", `/api/order/openapi/query-user-activity?page=${page.query}`],
        ["market list", "GET", `/api/market/openapi/market/list?page=${page.query}`],
        ["notifications", "GET", `/api/user/notification/list?userId=${legacyUserId}&page=${page.query}`],
        [
          "monthly bill",
          "POST",
          "/api/order/openapi/merchant-commission-bill/query/month",
          { billPeriod: period, merchantId: Number(merchant.merchantId), page: page.json },
        ],
        [
          "bill detail",
          "GET",
          `/api/order/openapi/bill/query-detail?merchantId=${merchant.merchantId}&merchantUserId=huge-pages&page=${page.query}`,
        ],
      ];
      for (const [name, method, path, body] of routes) {
        assertEmptyPage(await legacyAnswer(method, path, body), name, page.query);
      }
    }
  });

  it("is an empty page on every paginated route of the admin host", async () => {
    for (const page of hugePages) {
      for (const path of [
        "/admin/applications",
        "/admin/withdrawals",
        "/admin/partners",
        "/admin/users",
        "/admin/markets",
        "/admin/deposits",
      ]) {
        assertEmptyPage(await adminAnswer(`${path}?page=${page.query}`), path, page.query);
      }
    }
  });
});
