// The legacy error module: every core rejection has its own line, and the envelope rule holds.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  fromRejection,
  legacyErrorBody,
  legacyErrorByRejection,
  legacyErrors,
} from "../../src/api/legacy/errors.js";
import { type RejectionCode, rejectionSpecs } from "../../src/core/errors.js";

describe("legacy errors", () => {
  it("map every core rejection explicitly", () => {
    const unmapped = (Object.keys(rejectionSpecs) as RejectionCode[]).filter(
      (code) => legacyErrorByRejection[code] === undefined,
    );
    assert.deepEqual(unmapped, [], "add these to legacyErrorByRejection in src/api/legacy/errors.ts");
  });

  it("put the HTTP status in code and the table's code in data.errorCode", () => {
    for (const error of Object.values(legacyErrors)) {
      const body = legacyErrorBody(error);
      assert.equal(body.code, error.status);
      assert.equal(typeof body.data.errorCode, "number");
    }
    assert.deepEqual(legacyErrorBody(fromRejection({ code: "MARKET_NOT_OPEN" })), {
      code: 422,
      msg: "market is closed",
      data: { errorCode: 90003 },
    });
    assert.deepEqual(legacyErrorBody(legacyErrors.invalidApiKey), {
      code: 401,
      msg: "invalid api key",
      data: { errorCode: 402 },
    });
  });
});
