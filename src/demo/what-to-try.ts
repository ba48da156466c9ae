// The few lines printed after the demo starts: where the credentials are, a market to look at,
// and where the documentation is.

import type { RunningDemo } from "./run-demo.js";

export interface WhatToTryInput {
  readonly demo: RunningDemo;
  readonly credentialsPath: string;
  /** Listener base URLs by name (gateway, public, legacy, admin), as far as known. */
  readonly addresses: Readonly<Record<string, string>>;
}

export function whatToTry({ demo, credentialsPath, addresses }: WhatToTryInput): string {
  const { seed } = demo;
  const models = [...new Set(seed.markets.map((market) => market.modelType))].join(", ");
  const lines = [
    "",
    seed.createdNow ? "Demo data created:" : "Demo data (already there):",
    `  ${seed.markets.length} open markets (${models || "none"}), users ${[seed.maker, seed.taker, ...seed.people].map((user) => user.marchantUserId).join(", ")}`,
    demo.bot === undefined
      ? "  market maker: off"
      : `  market maker: quoting as ${seed.maker.marchantUserId}, trading now and then as ${seed.taker.marchantUserId}`,
    "",
    "What to try:",
    `  credentials      ${credentialsPath} (merchantId, appKey, appSecret, apiKey)`,
  ];
  if (addresses.public !== undefined)
    lines.push(`  market pages     ${addresses.public}/ (the web console, no sign-in)`);
  if (addresses.admin !== undefined)
    lines.push(`  operator's desk  ${addresses.admin}/ (sign in with the admin token)`);
  const example = demo.example;
  if (example !== undefined) {
    lines.push(`  a market         ${example.market.marketId}: ${example.market.title}`);
    if (addresses.public !== undefined)
      lines.push(`  its page         ${addresses.public}/#/market/${example.market.marketId}`);
    if (addresses.public !== undefined && example.yesAssetId !== undefined) {
      lines.push(
        `  price history    ${addresses.public}/prices-history?market=${example.yesAssetId}&interval=1h`,
      );
      lines.push(
        `  live book        ${addresses.public.replace(/^http/, "ws")}/ws/market (subscribe to that asset id)`,
      );
    }
  }
  const event = seed.markets.find((market) => (market.outcomes?.length ?? 0) > 1);
  if (event !== undefined) {
    lines.push(`  an event         ${event.marketId}: ${event.title} (exactly one outcome wins)`);
    if (addresses.public !== undefined)
      lines.push(`  its page         ${addresses.public}/#/market/${event.marketId}`);
    lines.push("  convert No       POST /ordering/convert: No of some outcomes → Yes of the others + USDT");
  }
  lines.push("  trade by hand    register alice or bob (funded) with the demo partner: see README.md");
  for (const [name, url] of Object.entries(addresses))
    lines.push(`  ${`${name} docs`.padEnd(16)} ${url}/docs`);
  lines.push("  the CLI          npm run predex -- help");
  return lines.join("\n");
}
