// The demo partner of `npm start`: created on the first start, its secrets printed once and kept
// in data/credentials.json (0600) so that a newcomer can sign a request right away.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFile } from "../identity/secret-files.js";
import type { Platform } from "../server.js";

export const demoPartnerName = "demo";
export const credentialsFileName = "credentials.json";

export interface DemoCredentials {
  readonly merchantId: string;
  readonly appKey: string;
  readonly appSecret: string;
  readonly apiKey: string;
  readonly gatewayUrl: string;
}

/** The demo partner's credentials (created now, or read back from the file); undefined if the file is gone. */
export async function ensureDemoPartner(
  platform: Platform,
  dataDir: string,
): Promise<DemoCredentials | undefined> {
  const credentialsPath = join(dataDir, credentialsFileName);
  const identity = platform.deps.identity;
  if ((await identity.store.findPartnerByName(demoPartnerName)) !== undefined) {
    if (existsSync(credentialsPath)) {
      console.log(`\nDemo partner credentials: ${credentialsPath}`);
      return readDemoCredentials(credentialsPath);
    }
    console.log(
      "\nThe demo partner exists but its credentials file is gone; its secret was shown only once.",
    );
    return undefined;
  }
  const created = await identity.createPartner({ name: demoPartnerName });
  if (!created.ok) throw new Error(`could not create the demo partner: ${created.rejection.code}`);
  const credentials: DemoCredentials = { ...created.value, gatewayUrl: platform.addresses.gateway };
  writePrivateFile(credentialsPath, `${JSON.stringify(credentials, null, 2)}\n`);
  console.log(`\nDemo partner created (saved in ${credentialsPath}, mode 0600):`);
  console.log(`  merchantId ${credentials.merchantId}`);
  console.log(`  appKey     ${credentials.appKey}`);
  console.log(`  appSecret  ${credentials.appSecret}`);
  console.log(`  apiKey     ${credentials.apiKey}`);
  return credentials;
}

export function readDemoCredentials(path: string): DemoCredentials {
  const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<DemoCredentials>;
  for (const field of ["merchantId", "appKey", "appSecret", "apiKey"] as const) {
    if (typeof parsed[field] !== "string") throw new Error(`${path} has no ${field}`);
  }
  return parsed as DemoCredentials;
}
