// The operator's view of the chain wallet (DESIGN §4, src/chain): its state (GET /admin/chain), the
// deposits the watcher has seen (GET /admin/chain/deposits), approved withdrawals as unsigned
// transactions for signing elsewhere (GET /admin/withdrawals/export), and a new attempt at a
// withdrawal whose transaction failed or was dropped (POST /admin/withdrawals/{id}/retry).

import { type Static, Type } from "typebox";
import { unitsToAtoms } from "../../../chain/token-units.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { isoSeconds, parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { formatAtoms } from "../../../core/money.js";
import { type ChainDeposit, type ChainDepositStatus, depositCursorName } from "../../../store/chain-store.js";
import { pageWindow } from "../../../store/page-window.js";
import { evmAddressPattern } from "../../../wallet/deposit-addresses.js";
import { badRequest, sendRejection, sendServiceError } from "../../partner/errors.js";
import { PageFields, resolvePage } from "../../partner/pagination.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { AdminWithdrawal, adminWithdrawalView } from "./withdrawals.js";

const tags = ["Wallet"];
const noChain = badRequest("no chain is configured (PREDEX_CHAIN_RPC_URL, PREDEX_USDT_CONTRACT)");
const depositStatuses: readonly ChainDepositStatus[] = ["PENDING", "CREDITED", "DROPPED", "BELOW_MINIMUM"];
/** Approved withdrawals exported per call. */
const exportWithdrawalsMax = 100;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const ChainState = Type.Object({
  enabled: Type.Boolean({ description: "A chain is configured: the watcher runs" }),
  depositXpub: Type.String({
    description: "The account-level key deposit addresses derive from (child 0/N)",
  }),
  demoDepositKey: Type.Boolean({
    description: "True: the demo mnemonic in the data dir, not for real funds",
  }),
  chainId: Nullable(Type.Integer()),
  token: Nullable(Type.String()),
  decimals: Nullable(Type.Integer()),
  confirmations: Nullable(Type.Integer()),
  head: Nullable(Type.String({ description: "The chain's head at the watcher's last round" })),
  cursor: Nullable(Type.String({ description: "The last block the watcher has read" })),
  watchedAddresses: Type.Integer(),
  withdrawals: Type.String({
    description: "hot-wallet (predex sends), export (the operator signs elsewhere) or off (no chain)",
  }),
  hotWallet: Nullable(
    Type.Object({
      address: Type.String(),
      tokenBalance: Type.String({ description: "USDT (decimal string)" }),
      gasBalanceWei: Type.String(),
    }),
  ),
});

const ChainDepositView = Type.Object({
  txHash: Type.String(),
  logIndex: Type.Integer(),
  userId: Type.String(),
  address: Type.String(),
  amount: Type.String({ description: "USDT (decimal string)" }),
  tokenUnits: Type.String(),
  blockNumber: Type.String(),
  blockHash: Type.String(),
  status: Type.String({ description: depositStatuses.join(", ") }),
  seenAt: Type.String(),
  updatedAt: Type.String(),
});
const DepositListQuery = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 16, description: depositStatuses.join(", ") })),
  ...PageFields,
});
type DepositListQuery = Static<typeof DepositListQuery>;

const ExportQuery = Type.Object({
  from: Type.Optional(
    Type.String({
      maxLength: 64,
      description: "The signing address: fills in nonces, gas and fees, and serializes each transaction",
    }),
  ),
});
type ExportQuery = Static<typeof ExportQuery>;
const UnsignedWithdrawal = Type.Object({
  withdrawId: Type.String(),
  userId: Type.String(),
  recipient: Type.String(),
  amount: Type.String(),
  tokenUnits: Type.String(),
  chainId: Type.Integer(),
  to: Type.String({ description: "The token contract" }),
  value: Type.String(),
  data: Type.String({ description: "transfer(recipient, tokenUnits)" }),
  from: Nullable(Type.String()),
  nonce: Nullable(Type.Integer()),
  gas: Nullable(Type.String()),
  maxFeePerGas: Nullable(Type.String()),
  maxPriorityFeePerGas: Nullable(Type.String()),
  unsignedTransaction: Nullable(Type.String({ description: "EIP-1559 (type 2), serialized, unsigned" })),
  problem: Nullable(Type.String()),
});
const WithdrawalParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
type WithdrawalParams = Static<typeof WithdrawalParams>;

function chainDepositView(deposit: ChainDeposit) {
  return {
    txHash: deposit.txHash,
    logIndex: deposit.logIndex,
    userId: String(deposit.userId),
    address: deposit.address,
    amount: formatAtoms(deposit.amountAtoms),
    tokenUnits: deposit.units.toString(),
    blockNumber: deposit.blockNumber.toString(),
    blockHash: deposit.blockHash,
    status: deposit.status,
    seenAt: isoSeconds(deposit.seenAtMs),
    updatedAt: isoSeconds(deposit.updatedAtMs),
  };
}

export default defineRoutes((app, deps) => {
  app.get(
    "/admin/chain",
    {
      schema: {
        summary: "The chain wallet: deposit key, watcher, hot wallet",
        tags,
        response: partnerResponses(ChainState),
      },
    },
    async () => {
      const chain = deps.chainWallet;
      const common = {
        depositXpub: deps.depositAddresses.accountXpub,
        demoDepositKey: deps.config.chain.depositXpub === undefined,
        watchedAddresses: (await deps.depositAddresses.watched()).length,
      };
      if (chain === undefined) {
        return ok({
          ...common,
          enabled: false,
          chainId: null,
          token: null,
          decimals: null,
          confirmations: null,
          head: null,
          cursor: null,
          withdrawals: "off",
          hotWallet: null,
        });
      }
      let hotWallet = null;
      if (chain.sender !== undefined) {
        const address = chain.sender.address;
        // viem's pieces load with the chain wallet, not at start (src/server.ts).
        const { erc20Abi } = await import("../../../chain/erc20.js");
        const [tokenUnits, gasBalanceWei] = await Promise.all([
          chain.client.readContract({
            address: chain.token,
            abi: erc20Abi,
            functionName: "balanceOf",
            args: [address],
          }),
          chain.client.getBalance({ address }),
        ]);
        hotWallet = {
          address,
          tokenBalance: formatAtoms(unitsToAtoms(tokenUnits, chain.decimals).atoms),
          gasBalanceWei: gasBalanceWei.toString(),
        };
      }
      return ok({
        ...common,
        enabled: true,
        chainId: chain.chainId,
        token: chain.token,
        decimals: chain.decimals,
        confirmations: chain.confirmations,
        head: chain.watcher.head?.toString() ?? null,
        cursor: (await chain.store.cursor(depositCursorName))?.toString() ?? null,
        withdrawals: chain.sender === undefined ? "export" : "hot-wallet",
        hotWallet,
      });
    },
  );

  app.get(
    "/admin/chain/deposits",
    {
      schema: {
        summary: "Transfers the deposit watcher has seen, newest first; filter by status",
        tags,
        querystring: DepositListQuery,
        response: partnerResponses(Type.Object({ records: Type.Array(ChainDepositView) })),
      },
    },
    async (request, reply) => {
      const chain = deps.chainWallet;
      if (chain === undefined) return sendServiceError(reply, noChain);
      const query: DepositListQuery = request.query;
      const page = resolvePage(query.page, query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const status = query.status?.toUpperCase() as ChainDepositStatus | undefined;
      if (status !== undefined && !depositStatuses.includes(status)) {
        return sendServiceError(reply, badRequest(`status must be one of ${depositStatuses.join(", ")}`));
      }
      const { page: pageNumber, pageSize } = page.value;
      const { limit, offset } = pageWindow({ page: pageNumber, pageSize });
      const records = await chain.store.deposits(status, limit, offset);
      return ok({ records: records.map(chainDepositView) });
    },
  );

  app.get(
    "/admin/withdrawals/export",
    {
      schema: {
        summary: "Approved withdrawals as unsigned ERC20 transfers, for an operator who signs elsewhere",
        description:
          "Only without PREDEX_WITHDRAWAL_KEY_FILE (with it, the hot wallet pays them). Sign, broadcast, then POST /admin/withdrawals/{id}/complete with the txHash.",
        tags,
        querystring: ExportQuery,
        response: partnerResponses(Type.Object({ records: Type.Array(UnsignedWithdrawal) })),
      },
    },
    async (request, reply) => {
      const chain = deps.chainWallet;
      if (chain === undefined) return sendServiceError(reply, noChain);
      if (chain.sender !== undefined) {
        return sendServiceError(
          reply,
          badRequest(
            "the hot wallet (PREDEX_WITHDRAWAL_KEY_FILE) pays approved withdrawals; nothing to export",
          ),
        );
      }
      const query: ExportQuery = request.query;
      if (query.from !== undefined && !evmAddressPattern.test(query.from)) {
        return sendServiceError(reply, badRequest("from must be 0x followed by 40 hex digits"));
      }
      const approved = await deps.exchangeReadModels.withdrawals(
        { status: "APPROVED" },
        { page: 1, pageSize: exportWithdrawalsMax },
      );
      // Oldest first, so nonces follow the order the withdrawals were asked for.
      const open: typeof approved.records = [];
      for (const withdrawal of [...approved.records].reverse()) {
        const sent = await chain.store.withdrawal(withdrawal.withdrawalId);
        if (sent === undefined || sent.status === "FAILED" || sent.status === "DROPPED")
          open.push(withdrawal);
      }
      const { unsignedWithdrawals } = await import("../../../chain/unsigned-withdrawals.js");
      const records = await unsignedWithdrawals(chain, open, query.from as `0x${string}` | undefined);
      return ok({ records });
    },
  );

  app.post(
    "/admin/withdrawals/:id/retry",
    {
      schema: {
        summary: "Send a withdrawal whose transaction failed or was dropped again, as a new transaction",
        description:
          "400/1001 when no chain is configured or the withdrawal's transaction did not fail; 404/1404 for an unknown withdrawal.",
        tags,
        params: WithdrawalParams,
        response: partnerResponses(AdminWithdrawal),
      },
    },
    async (request, reply) => {
      const chain = deps.chainWallet;
      if (chain === undefined) return sendServiceError(reply, noChain);
      const params: WithdrawalParams = request.params;
      const withdrawalId = parseId(params.id);
      const withdrawal =
        withdrawalId === undefined ? undefined : await deps.exchangeReadModels.withdrawalById(withdrawalId);
      if (withdrawal === undefined) return sendRejection(reply, reject("WITHDRAWAL_NOT_FOUND"));
      if (withdrawal.status !== "APPROVED") return sendRejection(reply, reject("WITHDRAWAL_NOT_APPROVED"));
      const sent = await chain.store.withdrawal(withdrawal.withdrawalId);
      if (
        sent === undefined ||
        (sent.status !== "FAILED" && sent.status !== "DROPPED" && sent.status !== "HELD")
      ) {
        return sendServiceError(
          reply,
          badRequest(
            `only a FAILED or DROPPED withdrawal is retried; this one is ${sent?.status ?? "not sent yet"}`,
          ),
        );
      }
      // The old transaction can no longer be mined (reverted and confirmed, or its nonce taken),
      // so a new one cannot pay twice. The sender picks it up on its next round.
      await chain.store.release(withdrawal.withdrawalId);
      return ok(await adminWithdrawalView(deps, withdrawal));
    },
  );
});
