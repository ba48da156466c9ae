// `predex demo`: the same demo as `serve --demo`, seeded into a platform that is already running
// (admin API + signed API), then the market maker in the foreground until Ctrl-C.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { runDemo } from "../demo/run-demo.js";
import { whatToTry } from "../demo/what-to-try.js";
import { writePrivateFile } from "../identity/secret-files.js";
import { PredexAdminClient } from "../sdk/admin-client.js";
import { adminConnection } from "./admin.js";
import {
  credentialsFileName,
  type DemoCredentials,
  demoPartnerName,
  readDemoCredentials,
} from "./demo-partner.js";

export const demoUsage = `  demo [--admin-url URL] [--gateway-url URL] [--credentials FILE] [--seed-only]
                            seed the demo into a running platform (once; again is harmless) and run
                            the market maker until Ctrl-C (default: data/credentials.json, the
                            demo partner created there if missing; --seed-only: no market maker)`;

const consoleLog = {
  info: (message: string) => console.log(message),
  warn: (message: string) => console.log(message),
};

export async function runDemoCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      "admin-url": { type: "string" },
      "gateway-url": { type: "string" },
      credentials: { type: "string" },
      "seed-only": { type: "boolean", default: false },
    },
  });
  const config = loadConfig();
  const admin = adminConnection(values["admin-url"]);
  const gatewayUrl = values["gateway-url"] ?? `http://127.0.0.1:${config.gateway.port}`;
  const credentialsPath = values.credentials ?? join(config.dataDir, credentialsFileName);
  const credentials = existsSync(credentialsPath)
    ? readDemoCredentials(credentialsPath)
    : await createDemoPartner(admin, gatewayUrl, credentialsPath);

  const demo = await runDemo({ adminUrl: admin.url, adminToken: admin.token, gatewayUrl }, credentials, {
    log: consoleLog,
    bot: !values["seed-only"] && config.demoBot,
  });
  // The public listener's port is known only when it is not "any free port".
  const publicUrl: Record<string, string> =
    config.public.port === 0 ? {} : { public: `http://127.0.0.1:${config.public.port}` };
  console.log(
    whatToTry({ demo, credentialsPath, addresses: { gateway: gatewayUrl, ...publicUrl, admin: admin.url } }),
  );
  if (demo.bot === undefined) return 0;
  console.log("\nThe market maker runs until Ctrl-C.");
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  console.log(`\n${signal}: stopping the market maker…`);
  await demo.stop();
  return 0;
}

async function createDemoPartner(
  admin: { url: string; token: string },
  gatewayUrl: string,
  credentialsPath: string,
): Promise<DemoCredentials> {
  const client = new PredexAdminClient({ baseUrl: admin.url, token: admin.token });
  let created: Awaited<ReturnType<PredexAdminClient["createPartner"]>>;
  try {
    created = await client.createPartner({ name: demoPartnerName });
  } catch (error) {
    throw new Error(
      `no ${credentialsPath}, and the demo partner could not be created (${(error as Error).message}); pass --credentials FILE`,
    );
  }
  const credentials: DemoCredentials = {
    merchantId: created.merchantId,
    appKey: created.appKey,
    appSecret: created.appSecret,
    apiKey: created.apiKey,
    gatewayUrl,
  };
  writePrivateFile(credentialsPath, `${JSON.stringify(credentials, null, 2)}\n`);
  console.log(`Demo partner created (saved in ${credentialsPath}, mode 0600).`);
  return credentials;
}
