// The market detail every operator route answers: spec 000's detail plus `exclusive` (DESIGN §10),
// read from the engine's committed state with the rest of it.

import { loadMarketDetail } from "../../catalog/load-market-detail.js";
import type { AdminMarketDetail } from "../../contract/admin.js";
import { isExclusiveMarket } from "../../core/exchange.js";
import type { PlatformDeps } from "../deps.js";

export async function loadAdminMarketDetail(
  deps: PlatformDeps,
  marketId: number,
): Promise<AdminMarketDetail | undefined> {
  const detail = await loadMarketDetail(deps, marketId);
  if (detail === undefined) return undefined;
  const exclusive = await deps.engine.read((state) => isExclusiveMarket(state, marketId));
  return { ...detail, exclusive };
}
