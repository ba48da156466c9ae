// No function in src/core runs over 70 lines (TigerBeetle's rule, STYLE.md): a longer one is doing
// several jobs and wants a split. The measure is the compiler's own parse, and it is shown to fire
// on a small tree of files first, so a passing check means something.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { functionLengths } from "../support/function-lengths.js";

const coreLinesMax = 70;
const core = resolve(import.meta.dirname, "../../src/core");

/** A function of exactly `lines` lines, counting its first and last. */
function functionOfLines(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, index) => `  const value${index} = ${index};`);
  return [`export function ${name}(): void {`, ...body, "}"].join("\n");
}

describe("function lengths", () => {
  const fixture = mkdtempSync(join(tmpdir(), "predex-function-lengths-"));
  after(() => rmSync(fixture, { recursive: true, force: true }));

  it("measures every kind of function, a JSDoc comment not counted, nested ones named by their scope", () => {
    writeFileSync(
      join(fixture, "a.ts"),
      [
        "/**",
        " * A comment above does not count.",
        " */",
        functionOfLines("seventy", 70),
        functionOfLines("seventyOne", 71),
        "export class Holder {",
        "  method(): number {",
        "    const inner = (): number => {",
        "      return 1;",
        "    };",
        "    return inner();",
        "  }",
        "}",
        "",
      ].join("\n"),
    );
    const lengths = functionLengths(fixture).map(({ name, line, lines }) => ({ name, line, lines }));
    assert.deepEqual(lengths, [
      { name: "seventyOne", line: 74, lines: 71 },
      { name: "seventy", line: 4, lines: 70 },
      { name: "Holder.method", line: 146, lines: 6 },
      { name: "Holder.method/inner", line: 147, lines: 3 },
    ]);
    const tooLong = functionLengths(fixture).filter((length) => length.lines > coreLinesMax);
    assert.deepEqual(
      tooLong.map((length) => length.name),
      ["seventyOne"],
    );
  });

  it(`has no function over ${coreLinesMax} lines in src/core`, () => {
    const tooLong = functionLengths(core)
      .filter((length) => length.lines > coreLinesMax)
      .map((length) => `${length.file}:${length.line} ${length.name} (${length.lines} lines)`);
    assert.deepEqual(tooLong, [], `functions over ${coreLinesMax} lines:\n${tooLong.join("\n")}`);
  });
});
