// Every URL an operator writes is served to partners, whose front ends may render it as a link or
// an image: only http(s) URLs are taken, in every such field (a category's logoUrl, a market's
// marketLogo, marketBanner and dataResource, an outcome's outcomeLogo, a partner's webhookUrl).
// Anything else (`javascript:`, `data:`, `file:`, a scheme-relative `//host`) is 400/1001 naming
// the field, and nothing is created or changed.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RawResponse } from "./harness.js";
import { isoAt, startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

let platform: TradingPlatform;
let categoryId: string;
before(async () => {
  platform = await startTradingPlatform();
  categoryId = (await platform.operator.createCategory({ name: "Links" })).id;
});
after(() => platform.close());

const notHttp = [
  "javascript:alert(document.cookie)",
  "JavaScript:alert(1)",
  " javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "file:///etc/passwd",
  "//evil.example/logo.png",
  "vbscript:msgbox(1)",
  "logo.png",
];

function assertRefused(answer: RawResponse, field: string, value: string): void {
  assert.equal(answer.status, 400, `${field}=${value}: ${answer.text}`);
  assert.deepEqual(answer.json, {
    code: 1001,
    message: `bad request: ${field} must be an http or https URL`,
    data: null,
  });
}

function market(overrides: Record<string, unknown> = {}, outcomeOverrides: Record<string, unknown> = {}) {
  const hourMs = 3_600_000;
  return {
    title: "Will the link be safe?",
    categoryId,
    startTime: isoAt(Date.now() - hourMs),
    endTime: isoAt(Date.now() + 24 * hourMs),
    outcomes: [{ name: "Safe", options: [{ title: "Yes" }, { title: "No" }], ...outcomeOverrides }],
    ...overrides,
  };
}

async function marketCount(): Promise<number> {
  const answer = await platform.admin("GET", "/admin/markets");
  return (answer.json as { data: { total: number } }).data.total;
}

async function categoryCount(): Promise<number> {
  const answer = await platform.admin("GET", "/admin/categories");
  return (answer.json as { data: unknown[] }).data.length;
}

describe("URLs written through the operator API", () => {
  it("refuses a URL that is not http(s) in every market and outcome field, and creates nothing", async () => {
    const before = await marketCount();
    for (const value of notHttp) {
      for (const field of ["marketLogo", "marketBanner", "dataResource"]) {
        assertRefused(
          await platform.admin("POST", "/admin/markets", market({ [field]: value })),
          field,
          value,
        );
      }
      assertRefused(
        await platform.admin("POST", "/admin/markets", market({}, { outcomeLogo: value })),
        "outcomes.0.outcomeLogo",
        value,
      );
    }
    assert.equal(await marketCount(), before);
  });

  it("refuses it in a category's logoUrl, at creation and in a change", async () => {
    const before = await categoryCount();
    for (const value of notHttp) {
      assertRefused(
        await platform.admin("POST", "/admin/categories", { name: "Bad logo", logoUrl: value }),
        "logoUrl",
        value,
      );
      assertRefused(
        await platform.admin("PATCH", `/admin/categories/${categoryId}`, { logoUrl: value }),
        "logoUrl",
        value,
      );
    }
    assert.equal(await categoryCount(), before);
    const tree = await platform.admin("GET", "/admin/categories");
    assert.doesNotMatch(tree.text, /javascript|data:|file:|vbscript/i);
  });

  it("refuses it in a partner's webhookUrl, with the same words", async () => {
    for (const value of notHttp) {
      assertRefused(
        await platform.admin("POST", "/admin/partners", { webhookUrl: value }),
        "webhookUrl",
        value,
      );
    }
  });

  it("takes http and https URLs, and an empty category logo, and serves them as given", async () => {
    const created = await platform.admin(
      "POST",
      "/admin/markets",
      market(
        {
          marketLogo: "https://cdn.example/logo.png",
          marketBanner: "HTTP://cdn.example/banner.png",
          dataResource: "https://data.example/source?id=1",
        },
        { outcomeLogo: "http://cdn.example/outcome.png" },
      ),
    );
    assert.equal(created.status, 200, created.text);
    const detail = (
      created.json as { data: Record<string, unknown> & { outcomes: Array<Record<string, unknown>> } }
    ).data;
    assert.deepEqual(
      [detail.marketLogo, detail.marketBanner, detail.dataResource, detail.outcomes[0]!.outcomeLogo],
      [
        "https://cdn.example/logo.png",
        "HTTP://cdn.example/banner.png",
        "https://data.example/source?id=1",
        "http://cdn.example/outcome.png",
      ],
    );
    const category = await platform.admin("POST", "/admin/categories", { name: "No logo", logoUrl: "" });
    assert.equal(category.status, 200, category.text);
    const logo = await platform.admin("PATCH", `/admin/categories/${categoryId}`, {
      logoUrl: "https://cdn.example/links.png",
    });
    assert.equal((logo.json as { data: { logoUrl: string } }).data.logoUrl, "https://cdn.example/links.png");
  });
});
