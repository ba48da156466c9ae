// Several API nodes on one PostgreSQL database: each "node" is its own pool (its own connections,
// its own store instances), as two processes would be. What one node writes, every other sees at
// once (a revoked session, a used nonce), and work that must happen once happens once: each
// queued legacy request is executed by one node, each webhook delivery attempted by one node at a
// time, with the retries kept.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { pino } from "pino";
import { createMarketCommand } from "../../src/core/commands.js";
import { openExchangeHost } from "../../src/exchange/exchange-host.js";
import { LegacyNotifier } from "../../src/legacy/notifier.js";
import { clientOrderIdOf } from "../../src/legacy/order-request.js";
import { LegacyRequestExecutor } from "../../src/legacy/request-executor.js";
import { type LegacyRequestStore, notifyStatuses } from "../../src/store/legacy.js";
import { openPostgresGatewayNonceStore } from "../../src/store/postgres/gateway-nonces.js";
import { openPostgresIdentityStore } from "../../src/store/postgres/identity.js";
import { openPostgresLegacyNonceStore } from "../../src/store/postgres/legacy-nonces.js";
import { openPostgresLegacyRequestStore } from "../../src/store/postgres/legacy-requests.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { placeholderPartner } from "../support/identity-fixtures.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresDatabases } from "../support/postgres-databases.js";
import { waitUntil } from "../support/wait-until.js";
import { newRequest } from "./contracts/legacy-request-contract.js";

const skipReason = postgresSkipReason();

/** The exchange both nodes submit to (on PostgreSQL deployments, the engine leader). */
async function exchangeWithFundedUsers(userIds: readonly number[]) {
  const host = await openExchangeHost({
    db: openDatabase({ path: ":memory:" }),
    clock: Date.now,
    logger: pino({ level: "silent" }),
    onFatal: (error) => {
      throw error;
    },
  });
  const { engine } = host;
  assert.ok((await engine.submit(createMarketCommand({ title: "Rain?" }))).ok);
  assert.ok((await engine.submit({ type: "OpenMarket", marketId: 1 })).ok);
  for (const userId of userIds) {
    const deposit = {
      type: "Deposit",
      userId,
      amount: 1_000n * 100_000_000n,
      txHash: `0x${userId}`,
    } as const;
    assert.ok((await engine.submit(deposit)).ok);
  }
  /** Engine submissions per request id (the clientOrderId derives from it). */
  const submissions = new Map<string, number>();
  const exchange = {
    submit: (command: Parameters<typeof engine.submit>[0]) => {
      if (command.type === "PlaceOrder" && typeof command.clientOrderId === "string") {
        submissions.set(command.clientOrderId, (submissions.get(command.clientOrderId) ?? 0) + 1);
      }
      return engine.submit(command);
    },
    orderById: (orderId: number) => host.readModels.orderById(orderId),
  };
  const openOrders = () =>
    engine.read((state) =>
      userIds.reduce((sum, userId) => sum + (state.accounts.get(userId)?.openOrderCount ?? 0), 0),
    );
  return { host, exchange, submissions, openOrders };
}

if (skipReason !== undefined) {
  it("shared state across API nodes: postgres", { skip: skipReason }, () => {});
} else {
  const databases = postgresDatabases("shared");
  after(() => databases.close());

  /** Two nodes: two pools on one new database. */
  const twoNodes = async () => {
    const url = await databases.fresh();
    return [databases.pool(url, "predex-api-a"), databases.pool(url, "predex-api-b")] as const;
  };

  describe("sessions across API nodes", () => {
    it("a session revoked on one node is refused on the other at the next lookup", async () => {
      const [poolA, poolB] = await twoNodes();
      const nodeA = await openPostgresIdentityStore(poolA);
      const nodeB = await openPostgresIdentityStore(poolB);
      const partner = await nodeA.createPartner(placeholderPartner);
      const user = await nodeB.registerUser({
        partnerId: partner.partnerId,
        marchantUserId: "u",
        email: "u@x",
        avatarUrl: "",
        nowMs: 0,
      });
      await nodeA.createSession(
        {
          tokenSha256: "t",
          userId: user.userId,
          partnerId: partner.partnerId,
          createdAtMs: 1,
          expiresAtMs: 1e12,
        },
        5,
      );
      assert.equal((await nodeB.findSession("t"))?.revokedAtMs, null, "B sees A's new session");
      assert.equal((await nodeA.findSession("t"))?.revokedAtMs, null, "A has looked it up too");
      assert.equal(await nodeB.revokeUserSessions(user.userId, 50), 1);
      assert.equal((await nodeA.findSession("t"))?.revokedAtMs, 50, "A sees B's revocation at once");
    });
  });

  describe("nonces across API nodes", () => {
    it("a legacy authorize nonce used on one node is a reuse on the other", async () => {
      const [poolA, poolB] = await twoNodes();
      const nodeA = await openPostgresLegacyNonceStore(poolA);
      const nodeB = await openPostgresLegacyNonceStore(poolB);
      assert.equal(await nodeA.remember(1, "n", 0, 1_000), true);
      assert.equal(await nodeB.remember(1, "n", 10, 1_010), false);
      const races = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          (index % 2 === 0 ? nodeA : nodeB).remember(1, "race", 0, 100),
        ),
      );
      assert.equal(races.filter(Boolean).length, 1);
    });

    it("a gateway nonce used on one node is replayed on the other, and the cap holds across nodes", async () => {
      const [poolA, poolB] = await twoNodes();
      const options = { windowMs: 60_000, entriesPerPartnerMax: 4, nowMs: () => 0 };
      const nodeA = await openPostgresGatewayNonceStore(poolA, options);
      const nodeB = await openPostgresGatewayNonceStore(poolB, options);
      assert.equal(await nodeA.remember("p", "captured", 0), "fresh");
      assert.equal(await nodeB.remember("p", "captured", 5), "replayed", "the capture replayed on B");
      assert.equal(await nodeA.remember("p", "captured", 6), "replayed");
      const races = await Promise.all(
        Array.from({ length: 6 }, (_, index) => (index % 2 === 0 ? nodeA : nodeB).remember("q", "same", 7)),
      );
      assert.equal(races.filter((outcome) => outcome === "fresh").length, 1);
      // p holds 1; 3 more fill its 4 across both nodes, though neither node alone holds 4.
      assert.equal(await nodeB.remember("p", "b1", 8), "fresh");
      assert.equal(await nodeB.remember("p", "b2", 8), "fresh");
      assert.equal(await nodeA.remember("p", "a1", 8), "fresh");
      assert.equal(await nodeA.remember("p", "a2", 9), "full");
      assert.equal(await nodeB.remember("p", "b3", 9), "full");
      assert.equal(await nodeA.remember("r", "a2", 9), "fresh", "another partner is not affected");
    });
  });

  describe("legacy queue across API nodes", () => {
    const userIds = [11, 12, 13, 14, 15, 16];

    it("two executors racing on one queue execute every request exactly once, each user's in order", async () => {
      const [poolA, poolB] = await twoNodes();
      const storeA = await openPostgresLegacyRequestStore(poolA);
      const storeB = await openPostgresLegacyRequestStore(poolB);
      const { host, exchange, submissions, openOrders } = await exchangeWithFundedUsers(userIds);
      const requestIds: string[] = [];
      const enqueue = async (store: LegacyRequestStore, count: number) => {
        for (let index = 0; index < count; index += 1) {
          const requestId = `q${requestIds.length}`;
          requestIds.push(requestId);
          await store.enqueue(newRequest(requestId, userIds[requestIds.length % userIds.length]!));
        }
      };
      await enqueue(storeA, 60);
      const errors: unknown[] = [];
      const executorOf = (store: LegacyRequestStore) =>
        new LegacyRequestExecutor({
          store,
          exchange,
          describeRejection: (rejection) => ({ errorCode: 422, msg: rejection.code }),
          nowMs: Date.now,
          onError: (error) => errors.push(error),
        });
      const executors = [executorOf(storeA), executorOf(storeB)];
      for (const executor of executors) executor.start();
      // More arrives while both drain, through both nodes.
      await enqueue(storeB, 30);
      executors[1]!.wake();
      await enqueue(storeA, 30);
      executors[0]!.wake();
      await waitUntil(async () => (await storeA.pending(1)).length === 0, { timeoutMs: 30_000 });
      for (const executor of executors) await executor.stop();

      assert.deepEqual(errors, []);
      assert.equal(requestIds.length, 120);
      assert.deepEqual(
        requestIds.filter((requestId) => submissions.get(clientOrderIdOf(requestId)) !== 1),
        [],
        "each request was submitted to the engine exactly once",
      );
      assert.equal(await openOrders(), 120, "120 orders rest on the book, none twice");
      const records = await Promise.all(requestIds.map((requestId) => storeB.find(requestId)));
      assert.ok(records.every((record) => record?.status === "SUCCESS"));
      const orderIds = records.map((record) => JSON.parse(record!.notifyContent).order.orderId as number);
      assert.equal(new Set(orderIds).size, 120);
      for (const userId of userIds) {
        const ofUser = records
          .filter((record) => record!.userId === userId)
          .sort((a, b) => a!.sequence - b!.sequence)
          .map((record) => JSON.parse(record!.notifyContent).order.orderId as number);
        assert.deepEqual(
          ofUser,
          [...ofUser].sort((a, b) => a - b),
          `user ${userId}'s orders in submission order`,
        );
      }
      await host.close();
    });

    it("a node that dies after the engine committed leaves its requests to another after the lease, with no order placed twice", async () => {
      const [poolA, poolB] = await twoNodes();
      const storeA = await openPostgresLegacyRequestStore(poolA);
      const storeB = await openPostgresLegacyRequestStore(poolB);
      const { host, exchange, submissions, openOrders } = await exchangeWithFundedUsers(userIds);
      for (let index = 0; index < 12; index += 1) {
        await storeA.enqueue(newRequest(`d${index}`, userIds[index % userIds.length]!));
      }
      const leaseMs = 400;
      const common = {
        exchange,
        describeRejection: () => ({ errorCode: 422, msg: "refused" }),
        nowMs: Date.now,
        claimLeaseMs: leaseMs,
        backoffMs: 60_000,
      };
      // Node A: the engine commits its batch, then the node dies before recording the results
      // (and so never gives its claims back).
      const deadErrors: unknown[] = [];
      const dying = new LegacyRequestExecutor({
        ...common,
        store: {
          ...storeA,
          complete: async () => {
            throw new Error("node A died");
          },
          releaseClaims: async () => {},
        },
        onError: (error) => deadErrors.push(error),
      });
      // A's claims lapse leaseMs after A took them, which is after this: a lease measured from when A
      // died (later, by A's commit and stop) could have lapsed already on a slow machine.
      const claimedNotBeforeMs = Date.now();
      dying.start();
      await dying.idle();
      await dying.stop();
      assert.equal(deadErrors.length, 1);
      assert.equal(await openOrders(), 12, "A's orders were committed");

      // Node B runs all along: nothing for it while A's claims hold, everything once they lapse,
      // found by its own polling (nothing wakes it).
      const errors: unknown[] = [];
      const survivor = new LegacyRequestExecutor({
        ...common,
        store: storeB,
        pollIntervalMs: 50,
        onError: (error) => errors.push(error),
      });
      survivor.start();
      await survivor.idle();
      if (Date.now() - claimedNotBeforeMs < leaseMs) {
        assert.equal((await storeB.pending(20)).length, 12, "A's claims still hold");
      }
      await waitUntil(async () => (await storeB.pending(1)).length === 0, { timeoutMs: 30_000 });
      await survivor.stop();
      assert.deepEqual(errors, []);
      assert.equal(await openOrders(), 12, "the re-run found A's orders: none placed twice");
      assert.ok(
        [...submissions.values()].every((count) => count === 2),
        "each request ran on A, then on B",
      );
      const records = await Promise.all(Array.from({ length: 12 }, (_, index) => storeA.find(`d${index}`)));
      assert.ok(records.every((record) => record?.status === "SUCCESS"));
      await host.close();
    });
  });

  describe("webhook deliveries across API nodes", () => {
    /** Requests finished and due for delivery at once. */
    const finishedRequests = async (store: LegacyRequestStore, count: number): Promise<string[]> => {
      const requestIds = Array.from({ length: count }, (_, index) => `w${index}`);
      for (const requestId of requestIds) await store.enqueue(newRequest(requestId, 1));
      const claimed = await store.claim({ claimant: "executor", limit: count, nowMs: 0, leaseMs: 60_000 });
      await store.complete(
        claimed.map((record) => ({
          requestId: record.requestId,
          status: "SUCCESS" as const,
          errorMsg: null,
          notifyContent: "{}",
          notifyStatus: notifyStatuses.pending,
          nextNotifyAtMs: 0,
        })),
        1,
        "executor",
      );
      return requestIds;
    };

    const notifierOf = (store: LegacyRequestStore, fetchImpl: typeof fetch, errors: unknown[]) =>
      new LegacyNotifier({
        store,
        webhookOf: async () => ({ url: "http://127.0.0.1:9/hook", secret: "whsec_dGVzdHNlY3JldA==" }),
        nowMs: Date.now,
        fetch: fetchImpl,
        policy: {
          pollIntervalMs: 10,
          delayMsBase: 20,
          delayMsMax: 20,
          attemptsMax: 3,
          deliveriesInFlightMax: 8,
        },
        onError: (error) => errors.push(error),
      });

    /** A receiver that records each attempt; `failFirst` answers each request's first attempt 500. */
    const receiver = (failFirst: boolean) => {
      const attempts = new Map<string, number>();
      let concurrentMax = 0;
      const inFlight = new Map<string, number>();
      const fetchImpl = (async (_url: string, init: RequestInit) => {
        const requestId = (JSON.parse(String(init.body)) as { data: { id: string } }).data.id;
        inFlight.set(requestId, (inFlight.get(requestId) ?? 0) + 1);
        concurrentMax = Math.max(concurrentMax, inFlight.get(requestId)!);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight.set(requestId, inFlight.get(requestId)! - 1);
        const attempt = (attempts.get(requestId) ?? 0) + 1;
        attempts.set(requestId, attempt);
        return new Response(null, { status: failFirst && attempt === 1 ? 500 : 200 });
      }) as unknown as typeof fetch;
      return { attempts, fetchImpl, concurrentMax: () => concurrentMax };
    };

    it("two notifiers deliver each result once", async () => {
      const [poolA, poolB] = await twoNodes();
      const storeA = await openPostgresLegacyRequestStore(poolA);
      const storeB = await openPostgresLegacyRequestStore(poolB);
      const requestIds = await finishedRequests(storeA, 40);
      const { attempts, fetchImpl, concurrentMax } = receiver(false);
      const errors: unknown[] = [];
      const notifiers = [notifierOf(storeA, fetchImpl, errors), notifierOf(storeB, fetchImpl, errors)];
      for (const notifier of notifiers) notifier.start();
      await waitUntil(
        async () => {
          const records = await Promise.all(requestIds.map((requestId) => storeA.find(requestId)));
          return records.every((record) => record?.notifyStatus === notifyStatuses.delivered);
        },
        { timeoutMs: 30_000 },
      );
      for (const notifier of notifiers) await notifier.stop();
      assert.deepEqual(errors, []);
      assert.deepEqual(
        requestIds.map((requestId) => attempts.get(requestId)),
        requestIds.map(() => 1),
      );
      assert.equal(concurrentMax(), 1);
      assert.ok(
        notifiers.every((notifier) => notifier.stats.attempts > 0),
        "both nodes delivered some",
      );
    });

    it("keeps each delivery's retries across nodes: one failed attempt, one success, never two at once", async () => {
      const [poolA, poolB] = await twoNodes();
      const storeA = await openPostgresLegacyRequestStore(poolA);
      const storeB = await openPostgresLegacyRequestStore(poolB);
      const requestIds = await finishedRequests(storeA, 30);
      const { attempts, fetchImpl, concurrentMax } = receiver(true);
      const errors: unknown[] = [];
      const notifiers = [notifierOf(storeA, fetchImpl, errors), notifierOf(storeB, fetchImpl, errors)];
      for (const notifier of notifiers) notifier.start();
      await waitUntil(
        async () => {
          const records = await Promise.all(requestIds.map((requestId) => storeB.find(requestId)));
          return records.every((record) => record?.notifyStatus === notifyStatuses.delivered);
        },
        { timeoutMs: 30_000 },
      );
      for (const notifier of notifiers) await notifier.stop();
      assert.deepEqual(errors, []);
      assert.deepEqual(
        requestIds.map((requestId) => attempts.get(requestId)),
        requestIds.map(() => 2),
      );
      const records = await Promise.all(requestIds.map((requestId) => storeB.find(requestId)));
      assert.ok(records.every((record) => record?.notifyRetryTimes === 1));
      assert.equal(concurrentMax(), 1);
    });
  });
}
