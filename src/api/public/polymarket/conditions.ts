// One condition-id index per platform, shared by every route file that looks a condition up
// (/markets/{id}, /live-activity/events/{id}, /rewards/markets/{id}): the index hashes each outcome
// once, so one copy per platform is enough. Keyed by the platform's deps, so two platforms in one
// process (tests) never share one.

import { ConditionIndex } from "../../../realtime/condition-ids.js";
import type { PlatformDeps } from "../../deps.js";

const indexes = new WeakMap<PlatformDeps, ConditionIndex>();

export function conditionIndexFor(deps: PlatformDeps): ConditionIndex {
  let index = indexes.get(deps);
  if (index === undefined) {
    index = new ConditionIndex();
    indexes.set(deps, index);
  }
  return index;
}
