// Every bound the exchange core enforces, named with its unit last (TigerBeetle's style).
// The bounds also prove that the JS numbers used inside one order are exact integers:
// orderSharesMax × 1 USDT = 1e14 atoms, far below Number.MAX_SAFE_INTEGER (9.007e15).

import { atomsPerLot, priceUnitsPerUnit } from "./units.js";

/** Largest order: 1,000,000 shares. Keeps per-order cash below 2^53 atoms. */
export const orderLotsMax = 10_000_000_000;
export const orderSharesMax = BigInt(orderLotsMax) * atomsPerLot;
/** Largest MARKET BUY amount: 1,000,000 USDT. */
export const orderAmountAtomsMax = 100_000_000_000_000n;
/** Open (resting) orders one user may have across all markets. */
export const openOrdersPerUserMax = 1_000;
/** Resting orders on one outcome's book (both sides). Bounds level totals and CloseMarket's work. */
export const ordersPerBookMax = 100_000;
/** Resting orders one incoming order may trade against; the rest of it is then cancelled, not rested. */
export const makersPerTakerMax = 1_000;
/** GTD orders one ExpireOrders command expires; the scheduler calls again while there are more. */
export const expireOrdersPerCommandMax = 10_000;
/** The dead-man's switch (Heartbeat): its timeout, when armed, is 5 s to 5 min; 0 disarms it. */
export const deadMansSwitchTimeoutMsMin = 5_000;
export const deadMansSwitchTimeoutMsMax = 300_000;
/** Outcomes in one market. */
export const outcomesPerMarketMax = 64;
/** Fee rates are basis points; 1,000 bps (10%) is the most a market may charge per side. */
export const feeBpsMax = 1_000;
export const basisPointsPerUnit = 10_000;
export const clientOrderIdLengthMax = 64;
export const txHashLengthMax = 128;
export const titleLengthMax = 512;

/** Price levels a book can ever have per side: one per tick strictly between 0 and 1. */
export const priceLevelsPerSideMax = priceUnitsPerUnit - 1;

if (orderLotsMax * priceUnitsPerUnit > Number.MAX_SAFE_INTEGER) {
  throw new Error("limits.ts: per-order cash would not be exact in a JS number");
}
