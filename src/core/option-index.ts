// Which option of a binary outcome: 0 is Yes, 1 is No (DESIGN §3). Markets (market.ts) and resting
// orders (book/orders.ts) both carry it; it lives apart so the book does not depend on the market.

export const yesOptionIndex = 0;
export const noOptionIndex = 1;
export type OptionIndex = 0 | 1;
