// Compiles the devnet's test USDT with solc-js (the `solc` npm package; no compiler download) and
// writes its ABI and bytecode to TestUSDT.json beside it, which is committed so that tests and
// `npm run chain:dev` need no compile step. Run again after editing TestUSDT.sol:
//   npx tsx src/chain/devnet/compile-contracts.ts

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";

const here = dirname(fileURLToPath(import.meta.url));
const sourceName = "TestUSDT.sol";
const contractName = "TestUSDT";

const input = {
  language: "Solidity",
  sources: { [sourceName]: { content: readFileSync(join(here, sourceName), "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // Paris: no PUSH0, so the bytecode runs on any EVM the operator may point a devnet at.
    evmVersion: "paris",
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
  },
};

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
const errors = (output.errors ?? []).filter((error) => error.severity === "error");
if (errors.length > 0) {
  for (const error of errors) console.error(error.formattedMessage);
  process.exit(1);
}
const compiled = output.contracts[sourceName]?.[contractName];
if (compiled === undefined) throw new Error(`${contractName} missing from solc output`);
const artifact = {
  contractName,
  compiler: `solc-js ${solc.version()}`,
  abi: compiled.abi,
  bytecode: `0x${compiled.evm.bytecode.object}`,
};
writeFileSync(join(here, `${contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`);
console.log(`wrote ${contractName}.json (${compiled.evm.bytecode.object.length / 2} bytes of bytecode)`);
