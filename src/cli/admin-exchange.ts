// `predex admin market create|open|close|resolve|finalize|void` and `predex admin deposit`: the operator's exchange
// commands, over the admin API (like `admin partner create`), printing the answer's `data` as JSON.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type CreateMarketRequest, PredexAdminClient, type WinnerRequest } from "../sdk/admin-client.js";

export const adminExchangeUsage = `  admin market create       create a draft orderbook market
        --title TITLE --category-id ID --start ISO --end ISO [--outcome NAME]... (default: the title)
        [--description TEXT] [--rules TEXT] [--tags a,b] [--tick-size 0.01]
        [--maker-fee BPS] [--taker-fee BPS] [--creator-id ID] [--exclusive]   or: --file BODY.json
        (--exclusive: an exclusive event of two --outcome or more; exactly one of them wins)
  admin market open ID      publish a draft market (its books appear)
  admin market close ID     stop trading; resting orders are cancelled
  admin market resolve ID --winner OUTCOME_ID:OPTION_ID... [--window-seconds 86400] [--bond USDT]
        [--creator-id ID]   propose the winners of a closed market; a challenge window starts
  admin market finalize ID [--winner OUTCOME_ID:OPTION_ID]...
                            settle a resolving market now (--winner corrects the proposal)
  admin market void ID      void a market that is not settled: every share claimable at 0.5
  admin deposit --user-id ID --amount USDT --tx-hash HASH
                            credit a deposit (the same txHash again credits nothing);
                            --address 0x… instead of --user-id names the user by deposit address
  admin withdrawal list [--status PENDING] [--user-id ID] [--page N] [--page-size N]
                            withdrawals of every user, newest first
  admin withdrawal approve|reject|complete ID [--tx-hash 0x…]
                            move a withdrawal on: approve keeps it frozen (with a hot wallet,
                            predex then pays it on chain), reject returns amount + fee to the
                            user, complete sends them out (--tx-hash: paid from elsewhere)
  admin withdrawal retry ID send a withdrawal whose chain transaction FAILED or was DROPPED again
  admin withdrawal export [--from 0x…]
                            approved withdrawals as unsigned ERC20 transfers (JSON), for signing
                            outside predex; --from fills in nonce, gas, fees, serialized bytes
  admin chain               the chain wallet: deposit xpub, watcher head and cursor, hot wallet`;

export type AdminConnection = { url: string; token: string };

export async function runAdminMarket(
  action: string | undefined,
  args: readonly string[],
  connection: (adminUrl: string | undefined) => AdminConnection,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      title: { type: "string" },
      "category-id": { type: "string" },
      start: { type: "string" },
      end: { type: "string" },
      outcome: { type: "string", multiple: true },
      description: { type: "string" },
      rules: { type: "string" },
      tags: { type: "string" },
      "tick-size": { type: "string" },
      "maker-fee": { type: "string" },
      "taker-fee": { type: "string" },
      "creator-id": { type: "string" },
      file: { type: "string" },
      exclusive: { type: "boolean" },
      winner: { type: "string", multiple: true },
      "window-seconds": { type: "string" },
      bond: { type: "string" },
      "admin-url": { type: "string" },
    },
  });
  const client = clientFor(connection(values["admin-url"]));
  if (action === "resolve" || action === "finalize" || action === "void") {
    const [marketId] = positionals;
    if (marketId === undefined) return usageError(`predex admin market ${action} needs a market id`);
    if (action === "void") return print(client.voidMarket(marketId));
    const winners = winnersOf(values.winner ?? []);
    if (winners === undefined) return usageError("--winner takes OUTCOME_ID:OPTION_ID");
    if (action === "finalize")
      return print(client.finalizeMarket(marketId, winners.length === 0 ? {} : { outcomes: winners }));
    if (winners.length === 0)
      return usageError("predex admin market resolve needs --winner for every outcome");
    const windowSeconds = values["window-seconds"];
    if (windowSeconds !== undefined && !/^[0-9]{1,10}$/.test(windowSeconds))
      return usageError("--window-seconds takes a whole number of seconds");
    return print(
      client.resolveMarket(marketId, {
        outcomes: winners,
        ...(windowSeconds === undefined ? {} : { challengeWindowSeconds: Number(windowSeconds) }),
        ...(values.bond === undefined ? {} : { challengeBondAmount: values.bond }),
        ...(values["creator-id"] === undefined ? {} : { creatorId: values["creator-id"] }),
      }),
    );
  }
  if (action === "open" || action === "close") {
    const [marketId] = positionals;
    if (marketId === undefined) return usageError(`predex admin market ${action} needs a market id`);
    return print(action === "open" ? client.openMarket(marketId) : client.closeMarket(marketId));
  }
  if (action !== "create") return usageError(`predex admin market: unknown action "${action ?? ""}"`);
  let body: CreateMarketRequest;
  if (values.file !== undefined) {
    body = JSON.parse(readFileSync(values.file, "utf8")) as CreateMarketRequest;
  } else {
    const { title, start, end } = values;
    const categoryId = values["category-id"];
    if (title === undefined || categoryId === undefined || start === undefined || end === undefined) {
      return usageError(
        "predex admin market create needs --title, --category-id, --start and --end (or --file)",
      );
    }
    body = {
      title,
      categoryId,
      startTime: start,
      endTime: end,
      outcomes: (values.outcome ?? [title]).map((name) => ({
        name,
        options: [{ title: "Yes" }, { title: "No" }],
      })),
      ...(values.description === undefined ? {} : { description: values.description }),
      ...(values.rules === undefined ? {} : { rules: values.rules }),
      ...(values.tags === undefined ? {} : { tags: values.tags }),
      ...(values["tick-size"] === undefined ? {} : { tickSize: values["tick-size"] }),
      ...(values["maker-fee"] === undefined ? {} : { makerFee: Number(values["maker-fee"]) }),
      ...(values["taker-fee"] === undefined ? {} : { takerFee: Number(values["taker-fee"]) }),
      ...(values["creator-id"] === undefined ? {} : { creatorId: values["creator-id"] }),
      ...(values.exclusive === true ? { exclusive: true } : {}),
    };
  }
  return print(client.createMarket(body));
}

export async function runAdminDeposit(
  args: readonly string[],
  connection: (adminUrl: string | undefined) => AdminConnection,
): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      "user-id": { type: "string" },
      address: { type: "string" },
      amount: { type: "string" },
      "tx-hash": { type: "string" },
      "admin-url": { type: "string" },
    },
  });
  const userId = values["user-id"];
  const { address, amount } = values;
  const txHash = values["tx-hash"];
  if ((userId === undefined) === (address === undefined) || amount === undefined || txHash === undefined) {
    return usageError("predex admin deposit needs --user-id (or --address), --amount and --tx-hash");
  }
  const client = clientFor(connection(values["admin-url"]));
  return print(
    address === undefined
      ? client.deposit({ userId: userId!, amount, txHash })
      : client.deposit({ address, amount, txHash }),
  );
}

export async function runAdminWithdrawal(
  action: string | undefined,
  args: readonly string[],
  connection: (adminUrl: string | undefined) => AdminConnection,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      status: { type: "string" },
      "user-id": { type: "string" },
      page: { type: "string" },
      "page-size": { type: "string" },
      "admin-url": { type: "string" },
      "tx-hash": { type: "string" },
      from: { type: "string" },
    },
  });
  if (action === "export") {
    return print(clientFor(connection(values["admin-url"])).exportWithdrawals(values.from));
  }
  if (action === "list") {
    return print(
      clientFor(connection(values["admin-url"])).listWithdrawals({
        ...(values.status === undefined ? {} : { status: values.status }),
        ...(values["user-id"] === undefined ? {} : { userId: values["user-id"] }),
        ...(values.page === undefined ? {} : { page: Number(values.page) }),
        ...(values["page-size"] === undefined ? {} : { pageSize: Number(values["page-size"]) }),
      }),
    );
  }
  const [withdrawId] = positionals;
  if (action !== "approve" && action !== "reject" && action !== "complete" && action !== "retry") {
    return usageError(`predex admin withdrawal: unknown action "${action ?? ""}"`);
  }
  if (withdrawId === undefined) return usageError(`predex admin withdrawal ${action} needs a withdrawal id`);
  const client = clientFor(connection(values["admin-url"]));
  const actions = {
    approve: () => client.approveWithdrawal(withdrawId),
    reject: () => client.rejectWithdrawal(withdrawId),
    complete: () => client.completeWithdrawal(withdrawId, values["tx-hash"]),
    retry: () => client.retryWithdrawal(withdrawId),
  };
  return print(actions[action]());
}

/** `OUTCOME_ID:OPTION_ID` pairs; undefined when one is malformed. */
function winnersOf(pairs: readonly string[]): WinnerRequest[] | undefined {
  const winners: WinnerRequest[] = [];
  for (const pair of pairs) {
    const match = /^([0-9]{1,15}):([0-9]{1,15})$/.exec(pair.trim());
    if (match === null) return undefined;
    winners.push({ outcomeId: match[1]!, winningOptionId: match[2]! });
  }
  return winners;
}

function clientFor(connection: AdminConnection): PredexAdminClient {
  return new PredexAdminClient({ baseUrl: connection.url, token: connection.token });
}

async function print(answer: Promise<unknown>): Promise<number> {
  try {
    console.log(JSON.stringify(await answer, null, 2));
    return 0;
  } catch (error) {
    console.error(`predex admin: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

function usageError(message: string): number {
  console.error(`${message}\n\n${adminExchangeUsage}`);
  return 2;
}

/** `predex admin chain`: the chain wallet's state. */
export async function runAdminChain(
  args: readonly string[],
  connection: (adminUrl: string | undefined) => AdminConnection,
): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: { "admin-url": { type: "string" } } });
  return print(clientFor(connection(values["admin-url"])).chainState());
}
