// The contract (src/contract) repeats a few limits of the core, because the SDK ships with the
// contract and without the core. These must stay the same numbers.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { challengeReasonLengthMax as wireChallengeReasonLengthMax } from "../../src/contract/legacy/applications.js";
import { convertOutcomesMax } from "../../src/contract/partner/convert.js";
import {
  heartbeatTimeoutSecondsMax,
  heartbeatTimeoutSecondsMin,
} from "../../src/contract/partner/market-making.js";
import { challengeReasonLengthMax } from "../../src/core/exchange.js";
import {
  deadMansSwitchTimeoutMsMax,
  deadMansSwitchTimeoutMsMin,
  outcomesPerMarketMax,
} from "../../src/core/limits.js";

describe("contract limits", () => {
  it("a challenge's reason has the same length limit on the wire as in the core", () => {
    assert.equal(wireChallengeReasonLengthMax, challengeReasonLengthMax);
  });

  it("the dead-man's switch takes the same timeouts on the wire as in the core", () => {
    assert.equal(heartbeatTimeoutSecondsMin * 1_000, deadMansSwitchTimeoutMsMin);
    assert.equal(heartbeatTimeoutSecondsMax * 1_000, deadMansSwitchTimeoutMsMax);
  });

  it("a conversion may list as many outcomes on the wire as a market has in the core", () => {
    assert.equal(convertOutcomesMax, outcomesPerMarketMax);
  });
});
