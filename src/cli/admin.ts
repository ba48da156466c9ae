// `predex admin …`: operator commands that call the running platform's admin API over HTTP, so
// they work against any deployment the operator can reach, not only a local data dir.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { adminTokenFileName } from "../server.js";
import { runAdminCategory } from "./admin-category.js";
import { runAdminChain, runAdminDeposit, runAdminMarket, runAdminWithdrawal } from "./admin-exchange.js";

export async function runAdmin(args: readonly string[]): Promise<number> {
  const [resource, action, ...rest] = args;
  if (resource === "partner" && action === "create") return createPartner(rest);
  if (resource === "market") return runAdminMarket(action, rest, adminConnection);
  if (resource === "category") return runAdminCategory(action, rest, adminConnection);
  if (resource === "withdrawal") return runAdminWithdrawal(action, rest, adminConnection);
  if (resource === "chain")
    return runAdminChain(action === undefined ? rest : [action, ...rest], adminConnection);
  if (resource === "deposit")
    return runAdminDeposit(action === undefined ? rest : [action, ...rest], adminConnection);
  console.error(`predex admin: unknown command "${[resource, action].filter(Boolean).join(" ")}"`);
  console.error(
    "Try: predex admin partner create [--name NAME] [--commission-rate RATE] [--webhook-url URL]",
  );
  return 2;
}

async function createPartner(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      name: { type: "string" },
      "rsa-public-key-file": { type: "string" },
      "commission-rate": { type: "string" },
      "webhook-url": { type: "string" },
      "admin-url": { type: "string" },
    },
  });
  const body: Record<string, string> = {};
  if (values.name !== undefined) body.name = values.name;
  if (values["rsa-public-key-file"] !== undefined)
    body.rsaPublicKey = readFileSync(values["rsa-public-key-file"], "utf8");
  if (values["commission-rate"] !== undefined) body.commissionRate = values["commission-rate"];
  if (values["webhook-url"] !== undefined) body.webhookUrl = values["webhook-url"];

  const { url, token } = adminConnection(values["admin-url"]);
  const response = await fetch(new URL("/admin/partners", url), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) {
    console.error(`predex admin: HTTP ${response.status}: ${text}`);
    return 1;
  }
  const envelope = JSON.parse(text) as { data: unknown };
  console.log(JSON.stringify(envelope.data, null, 2));
  return 0;
}

export function adminConnection(adminUrl: string | undefined): { url: string; token: string } {
  const config = loadConfig();
  const url = adminUrl ?? `http://127.0.0.1:${config.admin.port}`;
  if (config.adminToken !== undefined) return { url, token: config.adminToken };
  try {
    return { url, token: readFileSync(join(config.dataDir, adminTokenFileName), "utf8").trim() };
  } catch {
    throw new Error(
      `no admin token: set PREDEX_ADMIN_TOKEN or start the platform once with PREDEX_DATA_DIR=${config.dataDir}`,
    );
  }
}
