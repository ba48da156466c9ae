// Partners' users placing orders through API nodes with the SDK the way a careful partner does during
// an outage: every order carries a clientOrderId, and an order that gets no acknowledgement (502/2002
// "nothing was done", 504/2001 "unknown outcome", any other retryable answer, or no answer) is sent
// again with the same clientOrderId until it is acknowledged, so each logical order is placed exactly
// once. What the load saw is counted per kind of answer; checkOrders then asks the database whether
// any order was placed twice or any acknowledged one is missing. Bounded: each user stops at
// ordersPerUserMax, and a resend loop gives up after resendForMs.

import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { NetworkError, PredexApiError } from "../../src/sdk/errors.js";
import type { PostgresPool } from "../../src/store/postgres/database.js";
import type { ApiNodeAddresses } from "./cli-deployment.js";
import { waitUntil } from "./wait-until.js";

export interface Acknowledged {
  readonly user: number;
  readonly clientOrderId: string;
  readonly orderId: string;
  /** performance.now() of the first send and of the acknowledgement. */
  readonly firstSentAtMs: number;
  readonly atMs: number;
}

export interface TradingSetup {
  readonly adminToken: string;
  readonly usersCount: number;
  readonly depositUsdt: string;
  /** Tells the runs of one database apart (user ids and tx hashes are per setup). */
  readonly label: string;
}

export interface TradingUsers {
  readonly marketId: string;
  readonly outcomeId: string;
  readonly optionIds: readonly [string, string];
  readonly users: readonly { readonly userId: string; readonly clients: readonly PredexClient[] }[];
}

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** A partner, an open binary market, and funded users, each with a client on every API node. */
export async function setUpTrading(
  apis: readonly ApiNodeAddresses[],
  setup: TradingSetup,
): Promise<TradingUsers> {
  const operator = new PredexAdminClient({ baseUrl: apis[0]!.admin, token: setup.adminToken });
  const partner = await operator.createPartner();
  const created = await operator.createMarket({
    title: `Faults ${setup.label}`,
    categoryId: (await operator.createCategory({ name: `Faults ${setup.label}` })).id,
    takerFee: 50,
    makerFee: 10,
    startTime: isoSeconds(Date.now() - 60_000),
    endTime: isoSeconds(Date.now() + 86_400_000),
    outcomes: [{ name: "Faults", options: [{ title: "Yes" }, { title: "No" }] }],
  });
  const market = await operator.openMarket(created.marketId);
  const outcome = market.outcomes[0]!;
  const users: { userId: string; clients: PredexClient[] }[] = [];
  for (let index = 0; index < setup.usersCount; index += 1) {
    // The SDK's own retries are off: the load resends by itself, and counts what it saw.
    const clients = apis.map(
      (api) =>
        new PredexClient({
          baseUrl: api.gateway,
          credentials: partner,
          retry: { attemptsMax: 1, delayMsBase: 1, delayMsMax: 1 },
          timeoutMs: 30_000,
        }),
    );
    const home = clients[index % clients.length]!;
    const user = await home.register({
      userEmail: `${setup.label}-${index}@example.com`,
      merchantId: partner.merchantId,
      marchantUserId: `${setup.label}-${index}`,
    });
    for (const client of clients) client.sessionCookie = home.sessionCookie;
    await operator.deposit({
      userId: user.userId,
      amount: setup.depositUsdt,
      txHash: `0x${setup.label}-${index}`,
    });
    users.push({ userId: user.userId, clients });
  }
  return {
    marketId: market.marketId,
    outcomeId: outcome.outcomeId,
    optionIds: [outcome.options[0]!.optionId, outcome.options[1]!.optionId],
    users,
  };
}

/** What an answer that was not an acknowledgement was, for counting. */
function kindOf(error: unknown): string {
  if (error instanceof PredexApiError) return `${error.status}/${error.code}`;
  if (error instanceof NetworkError) return "network";
  return `other: ${error instanceof Error ? error.message : String(error)}`;
}

export interface ResendingOrdersOptions {
  readonly ordersPerUserMax: number;
  /** An order still not acknowledged after this long is given up (and counted in failures). */
  readonly resendForMs: number;
  /** Pause before a resend. */
  readonly resendDelayMs?: number;
}

export class ResendingOrders {
  readonly acknowledged: Acknowledged[] = [];
  /** Answers that were not an acknowledgement, by kind ("502/2002", "504/2001", "network", …). */
  readonly answers = new Map<string, number>();
  /** Orders given up, or refused in a way no resend fixes. */
  readonly failures: string[] = [];
  #stopping = false;
  #abandoning = false;
  #running: Promise<void> | undefined;
  readonly #waiters = new Set<() => void>();

  constructor(
    readonly trading: TradingUsers,
    readonly options: ResendingOrdersOptions,
  ) {}

  start(): void {
    this.#running = Promise.all(this.trading.users.map((_, user) => this.#userLoop(user))).then(() => {});
  }

  /**
   * Stops sending new orders; resolves once every order in flight is acknowledged or given up
   * (`abandon`: at once, without resending; for a test's cleanup after a failure).
   */
  async stop(options: { readonly abandon?: boolean } = {}): Promise<void> {
    this.#stopping = true;
    if (options.abandon === true) this.#abandoning = true;
    await this.#running;
  }

  /** Waits for the first acknowledgement of an order first sent at or after `fromMs`; its time. */
  async firstAcknowledgedSentAfter(fromMs: number, timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.acknowledged
        .filter((ack) => ack.firstSentAtMs >= fromMs)
        .reduce((earliest, ack) => Math.min(earliest, ack.atMs), Number.POSITIVE_INFINITY);
      if (found !== Number.POSITIVE_INFINITY) return found;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no order sent after the fault was acknowledged within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.#waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until `count` more orders are acknowledged. */
  async acknowledgedMore(count: number, timeoutMs: number): Promise<void> {
    const target = this.acknowledged.length + count;
    await waitUntil(() => this.acknowledged.length >= target, {
      what: `${count} more acknowledgements`,
      timeoutMs,
    });
  }

  async #userLoop(user: number): Promise<void> {
    const { users, marketId, outcomeId, optionIds } = this.trading;
    const clients = users[user]!.clients;
    const resendDelayMs = this.options.resendDelayMs ?? 50;
    for (let sequence = 0; sequence < this.options.ordersPerUserMax && !this.#stopping; sequence += 1) {
      const clientOrderId = `u${user}-${sequence}`;
      const firstSentAtMs = performance.now();
      // Mostly through the user's own API node; every fourth order through another one.
      const client = clients[(user + (sequence % 4 === 3 ? 1 : 0)) % clients.length]!;
      for (;;) {
        try {
          const order = await client.createOrder({
            marketId,
            outcomeId,
            optionId: optionIds[user % 2]!,
            side: "BUY",
            orderType: "LIMIT",
            limitPrice: [0.45, 0.5, 0.55][sequence % 3]!,
            shares: 1 + (sequence % 4),
            clientOrderId,
          });
          this.acknowledged.push({
            user,
            clientOrderId,
            orderId: order.orderId,
            firstSentAtMs,
            atMs: performance.now(),
          });
          for (const wake of this.#waiters) wake();
          this.#waiters.clear();
          break;
        } catch (error) {
          const kind = kindOf(error);
          this.answers.set(kind, (this.answers.get(kind) ?? 0) + 1);
          const resendable =
            error instanceof NetworkError || (error instanceof PredexApiError && error.status >= 500);
          if (
            !resendable ||
            this.#abandoning ||
            performance.now() - firstSentAtMs > this.options.resendForMs
          ) {
            this.failures.push(`${clientOrderId}: ${kind}`);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, resendDelayMs));
        }
      }
    }
  }
}

export interface OrdersCheck {
  /** (user, clientOrderId) pairs with more than one order. */
  readonly placedTwice: number;
  /** Acknowledged orders missing from the database, or there under another order id. */
  readonly lost: number;
}

/** Every acknowledged order is in the orders read model under its id, and none is there twice. */
export async function checkOrders(
  pool: PostgresPool,
  trading: TradingUsers,
  acknowledged: readonly Acknowledged[],
): Promise<OrdersCheck> {
  const userIds = trading.users.map((user) => BigInt(user.userId));
  const rows = await pool.query<{ user_id: bigint; client_order_id: string; order_id: bigint }>(
    "SELECT user_id, client_order_id, order_id FROM exchange_orders WHERE user_id = ANY($1::bigint[]) AND client_order_id IS NOT NULL",
    [userIds],
  );
  const byKey = new Map<string, bigint[]>();
  for (const row of rows.rows) {
    const key = `${row.user_id}/${row.client_order_id}`;
    byKey.set(key, [...(byKey.get(key) ?? []), row.order_id]);
  }
  const placedTwice = [...byKey.values()].filter((ids) => ids.length > 1).length;
  let lost = 0;
  for (const ack of acknowledged) {
    const ids = byKey.get(`${trading.users[ack.user]!.userId}/${ack.clientOrderId}`) ?? [];
    if (!ids.some((id) => String(id) === ack.orderId)) lost += 1;
  }
  return { placedTwice, lost };
}
