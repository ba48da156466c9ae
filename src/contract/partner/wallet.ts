// Schemas of the wallet and account-history operations (DESIGN §4, §8). Amounts are decimal strings,
// ids decimal strings, times ISO 8601 UTC at second precision, `coinId` always "2" (USDT). Deposit
// and withdraw history put `count` and `records` inside `data`; account history puts the page
// fields (`current`, `size`, `total`, `pages`) inside `data` next to `records` (spec 000).

import { type Static, Type } from "typebox";
import { PageFields, PageFieldsSchema } from "./pagination.js";

const Decimal = (description: string) => Type.String({ description: `${description} (decimal string)` });
const Time = Type.String({ description: "ISO 8601 UTC, e.g. 2026-11-22T10:00:00Z" });
const CoinId = Type.String({ description: 'Always "2" (USDT)' });
const Network = Type.String({ description: "Always ERC20" });

export const HistoryQuery = Type.Object({ ...PageFields });
export type HistoryQuery = Static<typeof HistoryQuery>;

export const DepositAddress = Type.Object({
  coinId: CoinId,
  address: Type.String({ description: "0x and 40 hex digits; the same for this user every time" }),
  network: Network,
});
export type DepositAddress = Static<typeof DepositAddress>;

export const DepositRecord = Type.Object({
  txHash: Type.String({ description: "The chain transaction; with logIndex, identifies the deposit" }),
  logIndex: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "The transfer's log in the transaction (one transaction may carry several); null for a deposit credited by hand",
  }),
  coinId: CoinId,
  network: Network,
  amount: Decimal("USDT credited, or to be credited when confirmed"),
  status: Type.String({
    description:
      "PENDING (seen on chain, waiting for confirmations), CREDITED, or BELOW_MINIMUM (confirmed, under the 1 USDT minimum deposit: not credited)",
  }),
  confirmations: Type.Union([Type.Integer(), Type.Null()], {
    description: "PENDING: blocks so far (its own included); null otherwise",
  }),
  confirmationsRequired: Type.Union([Type.Integer(), Type.Null()], {
    description: "PENDING: blocks needed before it is credited; null otherwise",
  }),
  createdAt: Time,
});
export type DepositRecord = Static<typeof DepositRecord>;

export const DepositHistory = Type.Object({
  count: Type.Integer({ description: "Deposits in all pages" }),
  records: Type.Array(DepositRecord, { description: "Newest first" }),
});
export type DepositHistory = Static<typeof DepositHistory>;

export const WithdrawApplyRequest = Type.Object({
  amount: Type.Number({ description: "USDT to send (JSON number, at most 8 decimals); the fee is on top" }),
  address: Type.String({ maxLength: 128, description: "0x and 40 hex digits (ERC20)" }),
  mfaTicket: Type.Optional(
    Type.String({
      maxLength: 256,
      description:
        "Required when MFA is on: a ticket from /user/mfa/verify with purpose withdraw (single use)",
    }),
  ),
});
export type WithdrawApplyRequest = Static<typeof WithdrawApplyRequest>;

/** Ids in requests: the strings the API hands out, or numbers. Anything not a positive integer is "not found". */
export const WithdrawCancelRequest = Type.Object({
  withdrawId: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], {
    description: "The withdrawId that /withdraw/apply returned",
  }),
});
export type WithdrawCancelRequest = Static<typeof WithdrawCancelRequest>;

export const Withdrawal = Type.Object({
  withdrawId: Type.String({ description: "Numeric id as a string" }),
  coinId: CoinId,
  network: Network,
  amount: Decimal("USDT the address receives"),
  fee: Decimal("USDT fee, frozen with the amount and charged on completion"),
  address: Type.String(),
  status: Type.String({ description: "PENDING, APPROVED, COMPLETED, CANCELLED or REJECTED" }),
  txHash: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: "The chain transaction that pays it, once sent; null before",
    }),
  ),
  createdAt: Time,
  updatedAt: Type.String({ description: "When the status last changed (ISO 8601 UTC)" }),
});
export type Withdrawal = Static<typeof Withdrawal>;

export const WithdrawHistory = Type.Object({
  count: Type.Integer({ description: "Withdrawals in all pages" }),
  records: Type.Array(Withdrawal, { description: "Newest first" }),
});
export type WithdrawHistory = Static<typeof WithdrawHistory>;

export const AccountHistoryQuery = Type.Object({
  type: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        "Only this kind: DEPOSIT, FREEZE, UNFREEZE, TRADE, FEE, CHALLENGE_BOND, BOND_RETURN, BOND_FORFEIT, CLAIM, WITHDRAWAL_FREEZE, WITHDRAWAL_UNFREEZE, WITHDRAWAL, WITHDRAWAL_FEE, CONVERT",
    }),
  ),
  ...PageFields,
});
export type AccountHistoryQuery = Static<typeof AccountHistoryQuery>;

export const LedgerEntry = Type.Object({
  entryId: Type.String({ description: "Numeric id as a string; increases with time" }),
  type: Type.String(),
  coinId: CoinId,
  amount: Decimal("Signed change of the available balance"),
  balanceAfter: Decimal("Available balance after this entry"),
  frozenAmount: Decimal("Signed change of the frozen balance"),
  frozenAfter: Decimal("Frozen balance after this entry"),
  refId: Type.String({
    description:
      "What caused it: the deposit's txHash, the order id (FREEZE, UNFREEZE), the trade id (TRADE, FEE), the market id (bonds), the claim's transactionId (CLAIM) or the withdrawId (WITHDRAWAL_*)",
  }),
  time: Time,
});
export type LedgerEntry = Static<typeof LedgerEntry>;

export const AccountHistory = Type.Object({
  ...PageFieldsSchema,
  records: Type.Array(LedgerEntry, { description: "Newest first" }),
});
export type AccountHistory = Static<typeof AccountHistory>;
