// Fuzzing every route of the four OpenAPI documents (generated from the route schemas, as
// `predex openapi` writes them) with malformed input: wrong types, huge and negative and NaN-like
// numbers, huge strings, missing and extra fields, bad percent-encoding, invalid UTF-8, bodies that
// are not JSON, wrong content types. Each request is properly signed (gateway signature and session
// cookie, legacy JWT, admin token) so that the input reaches validation. It fails on any 5xx, on
// any request not answered within the per-request timeout, and on any state change after a
// refusal (the engine's journal sequence and the row counts of the data tables). Seeded and
// bounded (fast-check, fixed seed, a fixed number of runs per route).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { signRequest } from "../../src/sdk/signer.js";
import type { SurfaceName } from "../../src/server.js";
import { type LegacyPlatform, startLegacyPlatform } from "../legacy/fixtures.js";
import { tableRowCounts } from "./store-contents.js";

// FUZZ_SEED and FUZZ_RUNS explore further by hand; CI runs the fixed seed and count.
const seed = Number(process.env.FUZZ_SEED ?? 20261124);
const runsPerRoute = Number(process.env.FUZZ_RUNS ?? 12);
const requestTimeoutMs = 5_000;

interface Operation {
  readonly surface: SurfaceName;
  readonly method: string;
  /** The OpenAPI path, e.g. `/admin/markets/{id}/open`. */
  readonly path: string;
  readonly pathParams: readonly string[];
  readonly queryParams: readonly string[];
  readonly bodyFields: readonly string[];
  readonly hasBody: boolean;
}

interface FuzzInput {
  readonly pathValues: readonly string[];
  readonly query: Readonly<Record<string, string>>;
  readonly body: BodyVariant;
}

type BodyVariant =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "raw"; readonly bytes: Uint8Array; readonly contentType: string };

const hugeText = "x".repeat(70_000);
const nastyStrings = [
  "",
  " ",
  "-1",
  "0",
  "1e20",
  "1e308",
  "-1e308",
  "NaN",
  "Infinity",
  "-Infinity",
  "0x10",
  "9007199254740993",
  "100000000000000000000",
  "1.5",
  "null",
  "true",
  "[]",
  "{}",
  "%",
  "%ZZ",
  "%00",
  "\u0000",
  "é",
  "\u{1F4A5}",
  "'; DROP TABLE markets; --",
  "../../etc/passwd",
  hugeText.slice(0, 300),
  "2026-13-45T99:99:99Z",
];
const nastyValues: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  -5,
  7,
  1.5,
  1e-9,
  1e20,
  1e308,
  -1e308,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  "",
  "abc",
  "1e308",
  "NaN",
  "-0",
  hugeText,
  [],
  [1, "a", null],
  {},
  { nested: { deeper: [1, 2, { x: "y" }] } },
  "\u{1F4A5}",
];

const pathValueArbitrary = fc.constantFrom(
  ...nastyStrings.map((text) => encodeURIComponent(text)),
  "%ZZ",
  "1",
);
const queryValueArbitrary = fc.constantFrom(...nastyStrings);
const fieldValueArbitrary = fc.constantFrom(...nastyValues);

function bodyArbitrary(fields: readonly string[]): fc.Arbitrary<BodyVariant> {
  const objectBody = fc
    .record(
      Object.fromEntries(fields.map((field) => [field, fc.option(fieldValueArbitrary, { nil: undefined })])),
      { requiredKeys: [] },
    )
    .chain((record) =>
      fc.record({
        base: fc.constant(record),
        extra: fc.option(
          fc.dictionary(fc.constantFrom("extra", "__proto__", "constructor"), fieldValueArbitrary),
          {
            nil: undefined,
          },
        ),
      }),
    )
    .map(({ base, extra }): BodyVariant => ({ kind: "json", value: { ...base, ...(extra ?? {}) } }));
  const raw = (bytes: number[] | string, contentType: string): BodyVariant => ({
    kind: "raw",
    bytes: typeof bytes === "string" ? new TextEncoder().encode(bytes) : Uint8Array.from(bytes),
    contentType,
  });
  return fc.oneof(
    { weight: 6, arbitrary: objectBody },
    {
      weight: 4,
      arbitrary: fc.constantFrom<BodyVariant>(
        { kind: "json", value: fieldValueArbitrary },
        { kind: "json", value: [] },
        { kind: "json", value: nastyValues },
        { kind: "json", value: "a string" },
        { kind: "json", value: 1e308 },
        raw([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d], "application/json"),
        raw([0xc3, 0x28, 0xa0, 0xa1], "application/json"),
        raw("{not json", "application/json"),
        raw("", "application/json"),
        raw(`{"a":${"[".repeat(5_000)}${"]".repeat(5_000)}}`, "application/json"),
        raw('{"page":1}', "text/plain"),
        raw("a=1&b=2", "application/x-www-form-urlencoded"),
        raw('{"page":1}', "application/json; charset=latin1"),
        raw("x".repeat(1_100_000), "application/json"),
      ),
    },
  );
}

function inputArbitrary(operation: Operation): fc.Arbitrary<FuzzInput> {
  return fc.record({
    pathValues: fc.tuple(...operation.pathParams.map(() => pathValueArbitrary)) as fc.Arbitrary<string[]>,
    query: fc.record(
      Object.fromEntries(
        [...operation.queryParams, "unexpected"].map((name) => [
          name,
          fc.option(queryValueArbitrary, { nil: undefined }),
        ]),
      ),
      { requiredKeys: [] },
    ) as fc.Arbitrary<Record<string, string>>,
    body: operation.hasBody
      ? bodyArbitrary(operation.bodyFields)
      : fc.constant<BodyVariant>({ kind: "json", value: undefined }),
  });
}

let platform: LegacyPlatform;
let sessionCookie: string;
let partner: { appKey: string; appSecret: string; apiKey: string };
let legacyToken: string;
before(async () => {
  platform = await startLegacyPlatform();
  // Something for the routes to find: a market of each model, a funded user on both interfaces.
  await platform.openMarket();
  await platform.openMarket({ title: "Fuzz AMM", modelType: "AMM", liquidity: 1000 });
  const gatewayUser = await platform.fundedUser("100");
  sessionCookie = gatewayUser.client.sessionCookie!;
  partner = platform.partner;
  const merchant = await platform.createMerchant();
  const legacyUser = await platform.fundedLegacyUser(merchant, "100");
  legacyToken = legacyUser.token!;
});
after(() => platform.close());

function operationsOf(surface: SurfaceName): Operation[] {
  const document = platform.platform.apps[surface].swagger() as {
    paths: Record<string, Record<string, OpenApiOperation>>;
  };
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = operation.parameters ?? [];
      const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
      operations.push({
        surface,
        method: method.toUpperCase(),
        path,
        pathParams: parameters
          .filter((parameter) => parameter.in === "path")
          .map((parameter) => parameter.name),
        queryParams: parameters
          .filter((parameter) => parameter.in === "query")
          .map((parameter) => parameter.name),
        bodyFields: Object.keys(bodySchema?.properties ?? {}),
        hasBody: method !== "get" && method !== "head" && method !== "delete",
      });
    }
  }
  return operations;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** The legacy host allows 50 requests a second per merchant: paced below that, every request is judged on its input. */
const legacyRequestSpacingMs = 25;
let legacySentAtMs = 0;

async function send(operation: Operation, input: FuzzInput): Promise<Answer> {
  if (operation.surface === "legacy") {
    const waitMs = legacySentAtMs + legacyRequestSpacingMs - Date.now();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    legacySentAtMs = Date.now();
  }
  let path = operation.path;
  operation.pathParams.forEach((name, index) => {
    path = path.replace(`{${name}}`, input.pathValues[index] ?? "1");
  });
  const query = Object.fromEntries(Object.entries(input.query).filter(([, value]) => value !== undefined));
  let body: Uint8Array | undefined;
  let contentType: string | undefined;
  if (input.body.kind === "json") {
    if (input.body.value !== undefined) {
      body = new TextEncoder().encode(JSON.stringify(input.body.value));
      contentType = "application/json";
    }
  } else {
    body = input.body.bytes;
    contentType = input.body.contentType;
  }
  const baseUrl = platform.addresses[operation.surface];
  let pathAndQuery: string;
  let headers: Record<string, string>;
  if (operation.surface === "gateway") {
    const signed = signRequest(partner, {
      method: operation.method,
      path,
      query,
      ...(body === undefined ? {} : { body }),
      ...(contentType === undefined ? {} : { contentType }),
      cookie: sessionCookie,
    });
    pathAndQuery = signed.pathAndQuery;
    headers = signed.headers;
  } else {
    const search = new URLSearchParams(query as Record<string, string>).toString();
    pathAndQuery = search === "" ? path : `${path}?${search}`;
    headers = {
      ...(contentType === undefined ? {} : { "content-type": contentType }),
      ...(operation.surface === "admin" ? { authorization: `Bearer ${platform.platform.adminToken}` } : {}),
      ...(operation.surface === "legacy" ? { authorization: `Bearer ${legacyToken}` } : {}),
    };
  }
  const response = await fetch(`${baseUrl}${pathAndQuery}`, {
    method: operation.method,
    headers,
    ...(body === undefined ? {} : { body: new Uint8Array(body) }),
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  return { status: response.status, text: await response.text() };
}

/**
 * What a refused request must leave alone: the journal and the row count of every data table (on
 * SQLite or PostgreSQL, test/e2e/store-contents.ts).
 */
async function stateFingerprint(): Promise<string> {
  // Tables a read or a refusal may legitimately write: nonces, rate limits, click counters,
  // price samples, the journal's own snapshots.
  const volatile = /nonce|rate|click|sample|snapshot|session|heat|hot/i;
  const counts = await tableRowCounts(platform, volatile);
  return [`sequence=${platform.platform.deps.engine.committedSequence}`, ...counts].join(" ");
}

describe("fuzzing every route of the four OpenAPI documents with malformed input", () => {
  for (const surface of ["gateway", "public", "legacy", "admin"] as const) {
    it(`${surface}: no 5xx, no hang, no state change after a refusal`, async () => {
      const operations = operationsOf(surface);
      assert.ok(operations.length > 0, `${surface} documents its routes`);
      const failures: string[] = [];
      const statuses: Record<number, number> = {};
      for (const operation of operations) {
        await fc.assert(
          fc.asyncProperty(inputArbitrary(operation), async (input) => {
            const before = await stateFingerprint();
            let answer: Answer;
            try {
              answer = await send(operation, input);
            } catch (error) {
              failures.push(`${operation.method} ${operation.path}: no answer (${(error as Error).message})`);
              return;
            }
            statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
            if (answer.status >= 500) {
              failures.push(
                `${operation.method} ${operation.path} -> ${answer.status} ${answer.text.slice(0, 200)} for ${JSON.stringify(input).slice(0, 300)}`,
              );
            } else if (answer.status >= 400) {
              const afterRefusal = await stateFingerprint();
              if (afterRefusal !== before) {
                failures.push(`${operation.method} ${operation.path} -> ${answer.status} changed state`);
              }
            }
          }),
          { seed, numRuns: runsPerRoute, endOnFailure: true },
        );
      }
      if (process.env.FUZZ_DEBUG === "1") process.stderr.write(`${surface} ${JSON.stringify(statuses)}\n`);
      assert.deepEqual(failures, []);
    });
  }
});
