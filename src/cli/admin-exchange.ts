// `predex admin market create|open|close` and `predex admin deposit`: the operator's exchange
// commands, over the admin API (like `admin partner create`), printing the answer's `data` as JSON.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type CreateMarketRequest, PredexAdminClient } from "../sdk/admin-client.js";

export const adminExchangeUsage = `  admin market create       create a draft orderbook market
        --title TITLE --category-id ID --start ISO --end ISO [--outcome NAME]... (default: the title)
        [--description TEXT] [--rules TEXT] [--tags a,b] [--tick-size 0.01]
        [--maker-fee BPS] [--taker-fee BPS] [--creator-id ID]   or: --file BODY.json
  admin market open ID      publish a draft market (its books appear)
  admin market close ID     stop trading; resting orders are cancelled
  admin deposit --user-id ID --amount USDT --tx-hash HASH
                            credit a deposit (the same txHash again credits nothing)`;

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
      "admin-url": { type: "string" },
    },
  });
  const client = clientFor(connection(values["admin-url"]));
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
      amount: { type: "string" },
      "tx-hash": { type: "string" },
      "admin-url": { type: "string" },
    },
  });
  const userId = values["user-id"];
  const txHash = values["tx-hash"];
  if (userId === undefined || values.amount === undefined || txHash === undefined) {
    return usageError("predex admin deposit needs --user-id, --amount and --tx-hash");
  }
  return print(clientFor(connection(values["admin-url"])).deposit({ userId, amount: values.amount, txHash }));
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
