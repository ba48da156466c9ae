// `npm run chain:dev`: a local EVM network with a test USDT for trying predex's chain wallet end to
// end. Prints the settings to run predex against it, one per line, and runs until Ctrl-C. A block
// is mined for each transaction, on evm_mine, and every 3 s by itself so confirmations advance.

import { startDevnet } from "./devnet.js";

const devnet = await startDevnet({ port: Number(process.env.CHAIN_DEV_PORT ?? 8545) });
console.log(`PREDEX_CHAIN_RPC_URL=${devnet.rpcUrl}`);
console.log(`PREDEX_USDT_CONTRACT=${devnet.usdtContract}`);
console.log(`CHAIN_DEV_FUNDED_KEY=${devnet.fundedKey}`);
console.error(
  "# A devnet (Hardhat network, chain id 31337): the funded key holds 1,000,000,000 test USDT and 10,000 ETH." +
    "\n# Its keys are public test keys: never use them on a real network. Ctrl-C stops it.",
);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await devnet.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
// Keeps the process alive while the node runs in its child process.
setInterval(() => {}, 1 << 30);
