// `npm run profile:shares -- <file.cpuprofile> [window regex] [µs an order]`: the busy time of a
// server's CPU profile (BENCH_CPU_PROF=<dir> npm run bench:orders) by part of the order path.
// With the server's CPU µs an order from the bench's JSON line, each share is given in µs too.

import { readFileSync } from "node:fs";
import { type CpuProfile, orderPathRules, profileShares } from "./lib/profile-shares.js";

const [file, windowPattern = "placeOrderCommand", usPerOrder] = process.argv.slice(2);
if (file === undefined) {
  console.error("usage: npm run profile:shares -- <file.cpuprofile> [window regex] [µs an order]");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
const shares = profileShares(profile, orderPathRules, new RegExp(windowPattern));
const scale = usPerOrder === undefined ? undefined : Number(usPerOrder);
console.log(
  `window ${shares.windowSeconds.toFixed(2)} s, busy ${shares.busySeconds.toFixed(2)} s (${(
    (100 * shares.busySeconds) / Math.max(shares.windowSeconds, 1e-9)
  ).toFixed(1)}%)`,
);
for (const { part, share } of shares.parts) {
  const us = scale === undefined ? "" : ` ${(scale * share).toFixed(1).padStart(6)} µs`;
  console.log(`${(100 * share).toFixed(1).padStart(5)}%${us}  ${part}`);
}
console.log("--- innermost frames of 'other'");
for (const { frame, share } of shares.unnamed.slice(0, 15))
  console.log(`${(100 * share).toFixed(2).padStart(6)}%  ${frame}`);
