// A position as GET /account/positions shows it, from its read-model row.

import type { PositionRecord } from "../../../contract/partner/claims.js";
import { formatAtoms } from "../../../core/money.js";
import type { PositionRecord as StoredPosition } from "../../../store/exchange-read-models.js";

const atomsPerShare = 100_000_000n;

export function positionView(position: StoredPosition): PositionRecord {
  const shares = position.shares + position.frozenShares;
  return {
    positionId: String(position.positionId),
    marketId: String(position.marketId),
    outcomeId: String(position.outcomeId),
    optionId: String(position.optionId),
    shares: formatAtoms(shares),
    // Rounded down to the atom, as every derived figure (DESIGN §2).
    avgPrice: shares === 0n ? null : formatAtoms((position.cost * atomsPerShare) / shares),
    cost: formatAtoms(position.cost),
    status: position.status,
    claimable: formatAtoms(position.claimable),
  };
}
