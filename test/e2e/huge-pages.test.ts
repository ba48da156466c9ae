// Every paginated route of the four listeners follows one page rule (src/api/shared/pagination.ts):
// a page is a whole number from 1 to 2,147,483,647. Up to that, a page far past the end is an empty
// page (200) whose `current` is the page asked for, exactly; beyond it (1e20, 1e308, the 27-digit
// page of issue 28 that came back as `2.7658917993039505e+26`) is refused as a bad page number is
// on that listener: the query-string answer (text/plain 400) on the signed, public and admin
// listeners, 400/1001 for a JSON body, the legacy envelope's parameter error there. Never a 500,
// never a float.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type LegacyPlatform, startLegacyPlatform } from "../legacy/fixtures.js";
import type { RawResponse } from "./harness.js";

let platform: LegacyPlatform;
let sessionCookie: string;
let legacyToken: string;
let legacyUserId: number;
let merchantId: string;
before(async () => {
  platform = await startLegacyPlatform();
  sessionCookie = (await platform.fundedUser("10")).client.sessionCookie!;
  const merchant = await platform.createMerchant();
  merchantId = merchant.merchantId;
  const legacy = platform.legacyClient(merchant, { marchantUserId: "huge-pages" });
  const authorized = await legacy.authorize();
  legacyUserId = authorized.userId;
  legacyToken = authorized.token;
});
after(() => platform.close());

/** The largest page number: past the end of every table, and still an exact integer. */
const lastPage = "2147483647";
/** Page numbers beyond it, as written in a query string or a JSON body. */
const hugePages = ["2147483648", "1e20", "1e308", "276589179930395053538672640"];

type Surface = "gateway" | "public" | "legacy" | "admin";

interface PagedRoute {
  readonly surface: Surface;
  readonly name: string;
  /** Sends the route with `page` written as given (query text or JSON number text). */
  readonly send: (page: string) => Promise<RawResponse>;
  /** How this route refuses a page number: the query's plain text, a JSON body's 1001, or legacy's. */
  readonly refusal: "query" | "json" | "legacy";
}

function gatewayGet(path: string, extra = ""): PagedRoute["send"] {
  return (page) =>
    platform.signed(platform.partner, {
      path,
      query: Object.fromEntries(new URLSearchParams(`${extra}page=${page}`)),
      cookie: sessionCookie,
    });
}

function legacyRequest(method: "GET" | "POST", pathAndQuery: string, body?: string): Promise<RawResponse> {
  return platform.raw("legacy", {
    method,
    path: pathAndQuery,
    headers: {
      authorization: `Bearer ${legacyToken}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body }),
  });
}

function routes(): PagedRoute[] {
  const period = Number(new Date().toISOString().slice(0, 7).replace("-", ""));
  const gateway: PagedRoute[] = [
    ["/markets/list", ""],
    ["/search", "keyword=rain&"],
    ["/trades", ""],
    ["/account/history", ""],
    ["/account/positions", ""],
    ["/deposit/history", ""],
    ["/withdraw/history", ""],
  ].map(([path, extra]) => ({
    surface: "gateway",
    name: path!,
    send: gatewayGet(path!, extra),
    refusal: "query",
  }));
  gateway.push({
    surface: "gateway",
    name: "/ordering/open-orders",
    send: (page) =>
      platform.signed(platform.partner, {
        method: "POST",
        path: "/ordering/open-orders",
        body: `{"page":${page}}`,
        cookie: sessionCookie,
      }),
    refusal: "json",
  });
  const admin: PagedRoute[] = [
    "/admin/applications",
    "/admin/withdrawals",
    "/admin/partners",
    "/admin/users",
    "/admin/markets",
    "/admin/deposits",
  ].map((path) => ({
    surface: "admin",
    name: path,
    send: (page) => platform.admin("GET", `${path}?page=${page}`),
    refusal: "query",
  }));
  const publicRoutes: PagedRoute[] = [
    {
      surface: "public",
      name: "/console-api/markets",
      send: (page) => platform.raw("public", { path: `/console-api/markets?page=${page}` }),
      refusal: "query",
    },
  ];
  const legacy: PagedRoute[] = [
    {
      surface: "legacy",
      name: "positions",
      send: (page) => legacyRequest("POST", "/api/order/openapi/positions", `{"page":${page}}`),
      refusal: "legacy",
    },
    {
      surface: "legacy",
      name: "activity",
      send: (page) => legacyRequest("GET", `/api/order/openapi/query-user-activity?page=${page}`),
      refusal: "legacy",
    },
    {
      surface: "legacy",
      name: "market list",
      send: (page) => legacyRequest("GET", `/api/market/openapi/market/list?page=${page}`),
      refusal: "legacy",
    },
    {
      surface: "legacy",
      name: "notifications",
      send: (page) => legacyRequest("GET", `/api/user/notification/list?userId=${legacyUserId}&page=${page}`),
      refusal: "legacy",
    },
    {
      surface: "legacy",
      name: "monthly bill",
      send: (page) =>
        legacyRequest(
          "POST",
          "/api/order/openapi/merchant-commission-bill/query/month",
          `{"billPeriod":${period},"merchantId":${merchantId},"page":${page}}`,
        ),
      refusal: "legacy",
    },
    {
      surface: "legacy",
      name: "bill detail",
      send: (page) =>
        legacyRequest(
          "GET",
          `/api/order/openapi/bill/query-detail?merchantId=${merchantId}&merchantUserId=huge-pages&page=${page}`,
        ),
      refusal: "legacy",
    },
  ];
  return [...gateway, ...publicRoutes, ...legacy, ...admin];
}

describe("page numbers on every paginated route of the four listeners", () => {
  it("answers the last page number with an empty page whose current is that integer, exactly", async () => {
    for (const route of routes()) {
      const answer = await route.send(lastPage);
      assert.equal(answer.status, 200, `${route.surface} ${route.name}: ${answer.text}`);
      // `current` as written on the wire, where the route has one (deposit and withdraw histories
      // answer `{count, records}`): an integer literal, never in exponent form.
      if (answer.text.includes('"current":')) {
        assert.match(answer.text, /"current":2147483647[,}]/, `${route.surface} ${route.name}`);
      }
      const data = (answer.json as { data: unknown }).data;
      const records = Array.isArray(data) ? data : (data as { records: unknown[] }).records;
      assert.deepEqual(records, [], `${route.surface} ${route.name}`);
    }
  });

  it("refuses a page number beyond it, as that route refuses any bad page number", async () => {
    for (const route of routes()) {
      for (const page of hugePages) {
        const answer = await route.send(page);
        const where = `${route.surface} ${route.name} page=${page}: ${answer.status} ${answer.text}`;
        assert.equal(answer.status, 400, where);
        if (route.refusal === "query") {
          assert.match(answer.headers.get("content-type") ?? "", /^text\/plain/, where);
          assert.match(answer.text, /^Query deserialize error: invalid value for `page`/, where);
        } else if (route.refusal === "json") {
          const body = answer.json as { code: number; message: string };
          assert.equal(body.code, 1001, where);
          assert.match(body.message, /^bad request: page /, where);
        } else {
          const body = answer.json as { code: number; data: { errorCode: number; field: string } };
          assert.deepEqual([body.code, body.data.errorCode, body.data.field], [400, 400, "page"], where);
        }
      }
    }
  });
});
