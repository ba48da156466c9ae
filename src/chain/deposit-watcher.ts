// The deposit watcher (DESIGN §4): reads the token's Transfer logs to the issued deposit addresses,
// shows each as pending as soon as it is seen, and credits it once, through the engine's Deposit
// command (so the ledger and read models stay exact), when its block has the confirmations.
//
// Each round:
//  1. Scan from the cursor (the last block scanned, kept in SQLite across restarts) to the head, in
//     ranges of at most getLogsBlocksMax blocks, starting `confirmations` blocks below the cursor:
//     that window is read again every round, so a transfer a reorganisation moved to another block
//     is found there, and one it removed is not.
//  2. Record what was seen (keyed by transaction hash + log index, with its block's hash). A pending
//     deposit in the rescanned window that the scan no longer finds is DROPPED (it may come back).
//  3. For each pending deposit whose block now has the confirmations: compare the hash of the
//     chain's block at that height with the one recorded. Equal: credit (key `txHash:logIndex`; a
//     second credit of the key is refused by the engine, so a crash between crediting and marking
//     credits nothing twice). Different: its block left the chain, DROPPED.
// A reorganisation deeper than the confirmations is outside what any confirmation count protects.

import type { Logger } from "pino";
import type { Address, Chain, Hex, PublicClient, Transport } from "viem";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import { type ChainDeposit, type ChainStore, depositCursorName } from "../store/chain-store.js";
import type { DepositAddresses } from "../wallet/deposit-addresses.js";
import {
  depositAmountAtomsMin,
  depositKey,
  getLogsAddressesMax,
  getLogsBlocksMax,
} from "./deposit-policy.js";
import { transferEvent } from "./erc20.js";
import { unitsToAtoms } from "./token-units.js";

export interface DepositWatcherDeps {
  readonly client: PublicClient<Transport, Chain>;
  readonly store: ChainStore;
  readonly addresses: DepositAddresses;
  readonly engine: ExchangeEngine;
  readonly token: Address;
  readonly decimals: number;
  readonly confirmations: number;
  readonly pollMs: number;
  /** Where a first start begins; undefined: the head at that start. */
  readonly startBlock: bigint | undefined;
  readonly nowMs: () => number;
  readonly logger: Logger;
  /** Told of every credit (the benchmark measures latency with it). */
  readonly onCredited?: (deposit: ChainDeposit, head: bigint) => void;
}

export class DepositWatcher {
  readonly #deps: DepositWatcherDeps;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  /** The head of the last round: pending deposits show their confirmations against it. */
  #head: bigint | undefined;

  constructor(deps: DepositWatcherDeps) {
    this.#deps = deps;
  }

  get confirmations(): number {
    return this.#deps.confirmations;
  }

  /** The chain's head as of the last round. */
  get head(): bigint | undefined {
    return this.#head;
  }

  start(): void {
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** One round now (the loop's rounds never overlap this one). */
  async poll(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
    this.#running = this.#round().finally(() => {
      this.#running = undefined;
    });
    await this.#running;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(async () => {
      try {
        await this.poll();
      } catch (error) {
        // The node is down or answered nonsense: log, and try again next round from the same cursor.
        this.#deps.logger.warn({ err: error }, "deposit watcher: round failed; retrying");
      }
      this.#schedule(this.#deps.pollMs);
    }, delayMs);
  }

  async #round(): Promise<void> {
    const { client, store, confirmations } = this.#deps;
    const head = await client.getBlockNumber({ cacheTime: 0 });
    this.#head = head;
    let cursor = await store.cursor(depositCursorName);
    if (cursor === undefined) {
      cursor = (this.#deps.startBlock ?? head) - 1n;
      await store.setCursor(depositCursorName, cursor, this.#deps.nowMs());
    }
    // The last `confirmations` blocks below the cursor (or below the head, when a reorganisation
    // made the chain shorter) are read again: whatever a reorganisation replaced lies there, even
    // when the new chain has meanwhile grown past the cursor by more than that.
    // biome-ignore lint/complexity/useMathMinMax: bigint operands, which Math.min does not take.
    let from = (cursor < head ? cursor : head) - BigInt(confirmations) + 1n;
    if (from < 0n) from = 0n;
    if (from <= head) await this.#scan(from, head, cursor);
    await this.#confirm(head);
  }

  async #scan(from: bigint, head: bigint, cursor: bigint): Promise<void> {
    const { client, store, addresses, token, decimals } = this.#deps;
    const watched = await addresses.watched();
    const owners = new Map(watched.map((issued) => [issued.address, issued.userId]));
    const batches: Address[][] = [];
    for (let index = 0; index < watched.length; index += getLogsAddressesMax) {
      batches.push(
        watched.slice(index, index + getLogsAddressesMax).map((issued) => issued.address as Address),
      );
    }
    const seen = new Set<string>();
    for (let start = from; start <= head; start += getLogsBlocksMax) {
      const end = start + getLogsBlocksMax - 1n < head ? start + getLogsBlocksMax - 1n : head;
      for (const batch of batches) {
        const logs = await client.getLogs({
          address: token,
          event: transferEvent,
          args: { to: batch },
          fromBlock: start,
          toBlock: end,
          strict: true,
        });
        const nowMs = this.#deps.nowMs();
        for (const log of logs) {
          if (log.removed || log.blockHash === null || log.transactionHash === null) continue;
          const to = log.args.to.toLowerCase();
          const userId = owners.get(to);
          if (userId === undefined) continue;
          const converted = unitsToAtoms(log.args.value, decimals);
          const recorded = await store.recordSeen({
            txHash: log.transactionHash.toLowerCase(),
            logIndex: log.logIndex,
            userId,
            address: to,
            units: log.args.value,
            amountAtoms: converted.atoms,
            dustUnits: converted.dustUnits,
            blockNumber: log.blockNumber,
            blockHash: log.blockHash.toLowerCase(),
            seenAtMs: nowMs,
          });
          seen.add(depositKey(recorded.txHash, recorded.logIndex));
        }
      }
      // Progress is kept per range, so a restart in the middle of a long catch-up resumes here.
      if (end > cursor) await store.setCursor(depositCursorName, end, this.#deps.nowMs());
    }
    // The window was read again: a pending deposit in it that is no longer there was reorganised away.
    for (const pending of await store.pendingDeposits()) {
      if (pending.blockNumber >= from && !seen.has(depositKey(pending.txHash, pending.logIndex))) {
        await store.setDepositStatus(pending.txHash, pending.logIndex, "DROPPED", this.#deps.nowMs());
        this.#deps.logger.warn(
          { txHash: pending.txHash, logIndex: pending.logIndex, blockNumber: String(pending.blockNumber) },
          "deposit watcher: a pending deposit left the chain (reorganisation)",
        );
      }
    }
  }

  async #confirm(head: bigint): Promise<void> {
    const { client, store, confirmations, engine } = this.#deps;
    const canonical = new Map<bigint, Hex>();
    const due: ChainDeposit[] = [];
    for (const pending of await store.pendingDeposits()) {
      if (head - pending.blockNumber + 1n < BigInt(confirmations)) break; // oldest first: the rest are younger
      let hash = canonical.get(pending.blockNumber);
      if (hash === undefined) {
        hash = (await client.getBlock({ blockNumber: pending.blockNumber })).hash.toLowerCase() as Hex;
        canonical.set(pending.blockNumber, hash);
      }
      const nowMs = this.#deps.nowMs();
      if (hash !== pending.blockHash) {
        await store.setDepositStatus(pending.txHash, pending.logIndex, "DROPPED", nowMs);
        continue;
      }
      if (pending.amountAtoms < depositAmountAtomsMin) {
        await store.setDepositStatus(pending.txHash, pending.logIndex, "BELOW_MINIMUM", nowMs);
        continue;
      }
      due.push(pending);
    }
    // Submitted together, so the engine commits them in one group (one fsync for a catch-up's many).
    const results = await Promise.all(
      due.map((pending) =>
        engine.submit({
          type: "Deposit",
          userId: pending.userId,
          amount: pending.amountAtoms,
          txHash: depositKey(pending.txHash, pending.logIndex),
        }),
      ),
    );
    for (const [index, result] of results.entries()) {
      const pending = due[index]!;
      if (!result.ok && result.rejection.code !== "DEPOSIT_DUPLICATE") {
        this.#deps.logger.error(
          { txHash: pending.txHash, logIndex: pending.logIndex, rejection: result.rejection },
          "deposit watcher: the engine refused a confirmed deposit; it stays pending",
        );
        continue;
      }
      await store.setDepositStatus(pending.txHash, pending.logIndex, "CREDITED", this.#deps.nowMs());
      this.#deps.onCredited?.({ ...pending, status: "CREDITED" }, head);
    }
  }
}
