import { MemoryEngineStore, type MemoryTransaction } from "../../src/store/memory/engine-store.js";
import {
  type ContractCommand,
  type ContractEvent,
  describeEngineStoreContract,
} from "./engine-store-contract.js";

const recordedPrefix = "contract:sequence:";

describeEngineStoreContract<MemoryTransaction>("memory", {
  async create() {
    return new MemoryEngineStore<ContractCommand, ContractEvent>();
  },
  async reopen(store) {
    return (store as MemoryEngineStore<ContractCommand, ContractEvent>).crash();
  },
  recordSequences(transaction, entries) {
    for (const entry of entries) transaction.set(`${recordedPrefix}${entry.sequence}`, entry.sequence);
  },
  async readRecordedSequences(store) {
    const image = (store as MemoryEngineStore<ContractCommand, ContractEvent>).durableImage;
    return [...image.readModels.entries()]
      .filter(([key]) => key.startsWith(recordedPrefix))
      .map(([, value]) => value as bigint)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  },
  async disposeAll() {},
});
