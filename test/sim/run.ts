// npm run sim -- --seeds N [--first S] [--commands C] [--gap G]: the long crash simulation of the
// real exchange (exchange-crash-sim.ts), seed after seed. Prints one line per seed and a JSON
// summary line: seeds, power cuts recovered from, write boundaries passed, time, failures.

import { parseArgs } from "node:util";
import { runSimulation, type SimReport } from "./exchange-crash-sim.js";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "10" },
    first: { type: "string", default: "1" },
    commands: { type: "string", default: "3000" },
    gap: { type: "string", default: "80" },
    quiet: { type: "boolean", default: false },
  },
});
const seeds = Number(values.seeds);
const first = Number(values.first);
const started = performance.now();
let crashPoints = 0;
let writeBoundaries = 0;
let commands = 0;
const failures: string[] = [];
for (let seed = first; seed < first + seeds; seed++) {
  const seedStarted = performance.now();
  try {
    const report: SimReport = await runSimulation({
      seed,
      commands: Number(values.commands),
      crashGapWritesMax: Number(values.gap),
      compareReadModels: true,
      archiveJournal: true,
    });
    crashPoints += report.crashPoints;
    writeBoundaries += report.writeBoundaries;
    commands += report.commandsSubmitted;
    if (!values.quiet) {
      console.log(
        `seed ${seed}: ${report.crashPoints} power cuts, ${report.writeBoundaries} writes, ` +
          `${report.acknowledged} acknowledged, journal at ${report.journalSequence}, ` +
          `${report.cutsLosingUnsyncedWrites} cuts losing unsynced writes, ` +
          `state ${report.stateHash}, ${Math.round(performance.now() - seedStarted)} ms`,
      );
    }
  } catch (error) {
    failures.push(`seed ${seed}: ${(error as Error).message}`);
    console.error(`seed ${seed} FAILED:`, error);
  }
}
console.log(
  JSON.stringify({
    sim: "exchange-crash",
    seeds,
    first,
    commands,
    crashPoints,
    writeBoundaries,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    failures: failures.length,
  }),
);
process.exitCode = failures.length === 0 ? 0 : 1;
