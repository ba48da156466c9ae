// The lifecycle's part of the canonical state encoding (codec.ts): resolutions by market id and
// claims by position id, as arrays in a fixed field order, bigints as decimal strings. Snapshots
// written before the lifecycle existed have neither key and decode to none.

import type { ExchangeState } from "../state.js";
import type { MarketResolution, WinningOption } from "./resolution.js";

type Row = unknown[];

const winnersRow = (winners: readonly WinningOption[]): number[][] =>
  winners.map((winner) => [winner.outcomeId, winner.optionId]);

const winnersOf = (rows: number[][]): WinningOption[] =>
  rows.map(([outcomeId, optionId]) => ({ outcomeId: outcomeId!, optionId: optionId! }));

export function encodeLifecycle(state: ExchangeState): { resolutions: Row[]; claims: Row[] } {
  const resolutions = [...state.resolutions.values()]
    .sort((a, b) => a.marketId - b.marketId)
    .map((resolution) => [
      resolution.marketId,
      resolution.proposerId,
      winnersRow(resolution.proposedWinners),
      resolution.proposedAtMs,
      resolution.windowEndsAtMs,
      String(resolution.challengeBond),
      resolution.challenge === null
        ? null
        : [
            resolution.challenge.userId,
            String(resolution.challenge.bond),
            resolution.challenge.reason,
            resolution.challenge.atMs,
            resolution.challenge.bondHeld,
          ],
      resolution.finalWinners === null ? null : winnersRow(resolution.finalWinners),
      resolution.settledAtMs,
    ]);
  const claims = [...state.claims.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([positionId, amount]) => [positionId, String(amount)]);
  return { resolutions, claims };
}

export function decodeLifecycle(state: ExchangeState, data: Record<string, unknown>): void {
  for (const row of (data.resolutions ?? []) as Row[]) {
    const [
      marketId,
      proposerId,
      proposed,
      proposedAtMs,
      windowEndsAtMs,
      bond,
      challenge,
      final,
      settledAtMs,
    ] = row;
    const challengeRow = challenge as Row | null;
    const resolution: MarketResolution = {
      marketId: marketId as number,
      proposerId: proposerId as number | null,
      proposedWinners: winnersOf(proposed as number[][]),
      proposedAtMs: proposedAtMs as number,
      windowEndsAtMs: windowEndsAtMs as number,
      challengeBond: BigInt(bond as string),
      challenge:
        challengeRow === null
          ? null
          : {
              userId: challengeRow[0] as number,
              bond: BigInt(challengeRow[1] as string),
              reason: challengeRow[2] as string,
              atMs: challengeRow[3] as number,
              bondHeld: challengeRow[4] as boolean,
            },
      finalWinners: final === null ? null : winnersOf(final as number[][]),
      settledAtMs: settledAtMs as number | null,
    };
    state.resolutions.set(resolution.marketId, resolution);
  }
  for (const [positionId, amount] of (data.claims ?? []) as [number, string][]) {
    state.claims.set(positionId, BigInt(amount));
  }
}
