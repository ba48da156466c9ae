// Hardhat 2's network for predex's devnet (src/chain/devnet/devnet.ts). Every transaction is mined
// into its own block at once (automine), and a block is also mined every 3 s by itself (interval
// mining) so that confirmations advance with nothing sent; tests turn the interval off over RPC
// (evm_setIntervalMining 0) and mine with evm_mine. Nothing is compiled by Hardhat: the test USDT
// is compiled by compile-contracts.ts with solc-js. The accounts are Hardhat's well-known test keys.
module.exports = {
  networks: {
    hardhat: {
      chainId: 31337,
      mining: { auto: true, interval: 3000 },
    },
  },
};
