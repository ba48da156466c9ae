// `predex doctor`: checks a partner's credentials and signing against a running server, and when
// the gateway refuses, shows the server's string-to-sign next to ours, line by line.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { parseServerStringToSign } from "../sdk/client.js";
import { type GatewayCredentials, signRequest } from "../sdk/signer.js";
import { credentialsFileName } from "./demo-partner.js";

/** Skew beyond which a warning is printed, well inside the gateway's 15 minutes. */
const clockSkewWarningMs = 60_000;

export async function runDoctor(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { credentials: { type: "string" }, url: { type: "string" } },
  });
  const config = loadConfig();
  const credentialsPath = values.credentials ?? join(config.dataDir, credentialsFileName);
  const credentials = JSON.parse(readFileSync(credentialsPath, "utf8")) as GatewayCredentials & {
    gatewayUrl?: string;
  };
  const baseUrl = values.url ?? `http://127.0.0.1:${config.gateway.port}`;
  console.log(`Checking APP Key ${credentials.appKey} against ${baseUrl}`);

  // /user/0 never exists: a 404/1404 proves that the signature and the API key were both accepted.
  const signed = signRequest(credentials, { method: "GET", path: "/user/0" });
  const response = await fetch(new URL(signed.pathAndQuery, baseUrl), { headers: signed.headers });
  const text = await response.text();
  reportClock(response.headers.get("date"));

  if (response.status === 404) {
    console.log("OK: the gateway accepted the signature and the service accepted the API key.");
    return 0;
  }
  if (response.status === 401 && text === "Invalid Key") {
    console.log(
      "FAIL: the server does not know this APP Key (x-ca-key). Check appKey, and the server address.",
    );
    return 1;
  }
  if (response.status === 400 && text === "Invalid Signature") {
    const reason = response.headers.get("x-ca-error-reason") ?? "unknown";
    console.log(`FAIL: Invalid Signature (reason: ${reason}).`);
    const serverLines = (parseServerStringToSign(response.headers.get("x-ca-error-message")) ?? "").split(
      "\n",
    );
    const clientLines = signed.stringToSign.split("\n");
    for (let index = 0; index < Math.max(serverLines.length, clientLines.length); index += 1) {
      const same = serverLines[index] === clientLines[index];
      console.log(`${same ? "  " : "≠ "}server: ${JSON.stringify(serverLines[index] ?? null)}`);
      if (!same) console.log(`  client: ${JSON.stringify(clientLines[index] ?? null)}`);
    }
    if (reason === "signature") console.log("The lines agree, so the APP Secret differs: check appSecret.");
    return 1;
  }
  console.log(`FAIL: HTTP ${response.status}: ${text}`);
  return 1;
}

function reportClock(serverDate: string | null): void {
  if (serverDate === null) return;
  const skewMs = Date.now() - Date.parse(serverDate);
  if (Math.abs(skewMs) > clockSkewWarningMs) {
    console.log(
      `WARNING: this clock is ${Math.round(skewMs / 1000)} s off the server's (the gateway allows 900 s).`,
    );
  }
}
