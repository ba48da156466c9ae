// `predex serve --demo`: the demo partner, then the demo data and the market maker through the
// platform's own loopback listeners. A demo that fails to seed leaves a note, never a dead server.

import { join } from "node:path";
import type { Logger } from "pino";
import { type RunningDemo, runDemo } from "../demo/run-demo.js";
import { errorMessage } from "../demo/seed.js";
import { whatToTry } from "../demo/what-to-try.js";
import type { Platform } from "../server.js";
import { credentialsFileName, ensureDemoPartner } from "./demo-partner.js";

export async function startServeDemo(platform: Platform, dataDir: string): Promise<RunningDemo | undefined> {
  const credentials = await ensureDemoPartner(platform, dataDir);
  if (credentials === undefined) {
    console.log("Demo data and the market maker need the demo partner's credentials: skipped.");
    return undefined;
  }
  try {
    const demo = await runDemo(
      {
        adminUrl: platform.addresses.admin,
        adminToken: platform.adminToken,
        gatewayUrl: platform.addresses.gateway,
      },
      credentials,
      { log: consoleLog, botLog: serverLog(platform.deps.logger), bot: platform.deps.config.demoBot },
    );
    console.log(
      whatToTry({ demo, credentialsPath: join(dataDir, credentialsFileName), addresses: platform.addresses }),
    );
    return demo;
  } catch (error) {
    console.log(`Demo data could not be seeded (${errorMessage(error)}); the platform runs without it.`);
    return undefined;
  }
}

/** Seeding notes go to the console the newcomer reads; the bot's refusals to the server log. */
const consoleLog = {
  info: (message: string) => console.log(message),
  warn: (message: string) => console.log(message),
};

function serverLog(logger: Logger) {
  const botLogger = logger.child({ component: "demo-bot" });
  return {
    info: (message: string) => botLogger.info(message),
    warn: (message: string) => botLogger.warn(message),
  };
}
