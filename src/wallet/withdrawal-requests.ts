// POST /withdraw/apply's work, outside HTTP: check the request, check the MFA ticket when the user
// has MFA on, and freeze amount + fee through the engine (RequestWithdrawal).
//
// The order of operations keeps a refused request from changing anything, the MFA ticket included:
//  1. Input: amount (≤ 8 decimals, within the range), address (0x + 40 hex). Nothing is touched.
//  2. MFA on and no ticket: refused; a ticket sent while MFA is off is ignored, not consumed.
//  3. With MFA on, the rest runs one request per user at a time (a per-user queue), and:
//     a. the balance is checked first (committed state): a withdrawal that cannot fit is refused
//        before the ticket is looked at, so the user keeps the ticket;
//     b. the ticket is consumed (atomic in the MFA store: of two requests with one ticket, one wins);
//     c. the engine decides RequestWithdrawal, which checks the balance again, authoritatively.
//  Consuming before submitting means a ticket can never back two withdrawals. The one window left
//  is between (a) and (c): an order the same user places meanwhile can use up the balance, and the
//  engine then refuses with the ticket spent. The per-user queue closes it for concurrent
//  withdrawals; for orders it is accepted (the user verifies again) rather than un-consuming
//  tickets, which would let a ticket be replayed.

import { type Rejection, reject } from "../core/errors.js";
import { balanceOf, type RequestWithdrawalCommand, type WithdrawalRequestedEvent } from "../core/exchange.js";
import { formatAtoms, parseAtoms } from "../core/money.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { MfaRejection } from "../mfa/errors.js";
import type { MfaService } from "../mfa/service.js";
import {
  isWithdrawalAddress,
  withdrawalAmountAtomsMax,
  withdrawalAmountAtomsMin,
  withdrawalFeeAtoms,
} from "./withdrawal-policy.js";

export interface WithdrawalRequestInput {
  /** USDT, a JSON number (DESIGN §8). */
  readonly amount: number;
  readonly address: string;
  readonly mfaTicket?: string | undefined;
}

export type WithdrawalRequestResult =
  | { readonly ok: true; readonly requested: WithdrawalRequestedEvent }
  | { readonly ok: false; readonly rejection: Rejection }
  | { readonly ok: false; readonly mfaRejection: MfaRejection; readonly nowMs: number };

export interface WithdrawalRequestsDeps {
  readonly engine: ExchangeEngine;
  readonly mfa: Pick<MfaService, "isMfaEnabled" | "consumeMfaTicket">;
  readonly nowMs: () => number;
  /** Decimals a withdrawal's amount may have: the token's when it is paid on chain (USDT: 6); default 8. */
  readonly amountDecimalsMax?: number;
}

export class WithdrawalRequests {
  readonly #deps: WithdrawalRequestsDeps;
  /**
   * The tail of each user's queue of MFA-guarded requests. A queue is as long as the user's requests
   * in flight, each holding an open HTTP request, so the server's connection limits bound it.
   */
  readonly #queues = new Map<number, Promise<unknown>>();

  constructor(deps: WithdrawalRequestsDeps) {
    this.#deps = deps;
  }

  async request(userId: number, input: WithdrawalRequestInput): Promise<WithdrawalRequestResult> {
    const amount = parseAtoms(input.amount);
    if (!amount.ok) {
      return refused(
        amount.reason === "precision"
          ? reject("PRECISION_EXCEEDED", "amount has more than 8 decimal places")
          : reject("INVALID_INPUT", "amount must be a decimal number"),
      );
    }
    const decimalsMax = this.#deps.amountDecimalsMax ?? 8;
    if (amount.atoms % 10n ** BigInt(8 - decimalsMax) !== 0n) {
      return refused(reject("PRECISION_EXCEEDED", `amount has more than ${decimalsMax} decimal places`));
    }
    if (amount.atoms < withdrawalAmountAtomsMin || amount.atoms > withdrawalAmountAtomsMax) {
      return refused(
        reject(
          "AMOUNT_OUT_OF_RANGE",
          `amount must be between ${formatAtoms(withdrawalAmountAtomsMin)} and ${formatAtoms(withdrawalAmountAtomsMax)} USDT`,
        ),
      );
    }
    if (!isWithdrawalAddress(input.address)) {
      return refused(reject("INVALID_INPUT", "address must be 0x followed by 40 hex digits"));
    }
    const command: RequestWithdrawalCommand = {
      type: "RequestWithdrawal",
      userId,
      amount: amount.atoms,
      fee: withdrawalFeeAtoms,
      address: input.address,
    };
    if (!(await this.#deps.mfa.isMfaEnabled(userId))) return this.#submit(command);
    const ticket = input.mfaTicket;
    if (ticket === undefined || ticket === "")
      return refused(reject("INVALID_INPUT", "mfaTicket is required"));
    return this.#oneAtATime(userId, async () => {
      const balance = await this.#deps.engine.read((state) => balanceOf(state, userId));
      if (balance.available < command.amount + command.fee) return refused(reject("INSUFFICIENT_BALANCE"));
      const nowMs = this.#deps.nowMs();
      const consumed = await this.#deps.mfa.consumeMfaTicket(userId, ticket, "withdraw", nowMs);
      if (!consumed.ok) return { ok: false, mfaRejection: consumed.rejection, nowMs };
      return this.#submit(command);
    });
  }

  async #submit(command: RequestWithdrawalCommand): Promise<WithdrawalRequestResult> {
    const result = await this.#deps.engine.submit(command);
    if (!result.ok) return refused(result.rejection);
    const requested = result.events[0];
    if (requested?.type !== "WithdrawalRequested")
      throw new Error("RequestWithdrawal must emit WithdrawalRequested");
    return { ok: true, requested };
  }

  /** Runs `work` after the user's earlier guarded requests have finished. */
  async #oneAtATime<Result>(userId: number, work: () => Promise<Result>): Promise<Result> {
    const previous = this.#queues.get(userId) ?? Promise.resolve();
    const current = previous.then(work);
    const tail = current.catch(() => undefined);
    this.#queues.set(userId, tail);
    try {
      return await current;
    } finally {
      // The last one out removes the queue, so the map holds only users with requests in flight.
      if (this.#queues.get(userId) === tail) this.#queues.delete(userId);
    }
  }
}

function refused(rejection: Rejection): WithdrawalRequestResult {
  return { ok: false, rejection };
}
