// Measures the length of every function in a tree of TypeScript files with the compiler's own
// parser, so a rule such as "no function in src/core over 70 lines" is checked, not hoped for.

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export interface FunctionLength {
  /** The file, relative to the root given to `functionLengths`. */
  readonly file: string;
  /** The function's name, as written (`Class.method`, `outer/inner`), or `(anonymous)`. */
  readonly name: string;
  /** The first line of the function, 1-based, its leading comment not included. */
  readonly line: number;
  /** Lines from its first line to its last, both counted. */
  readonly lines: number;
}

function typeScriptFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...typeScriptFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(path);
  }
  return files.sort();
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name !== undefined) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return "constructor";
  // An arrow function or function expression takes the name of what it is assigned to.
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  return "(anonymous)";
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** Every function with a body in the .ts files under `root`, longest first. */
export function functionLengths(root: string): FunctionLength[] {
  const lengths: FunctionLength[] = [];
  for (const path of typeScriptFiles(root)) {
    const text = readFileSync(path, "utf8");
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const file = relative(root, path);
    const visit = (node: ts.Node, scope: string): void => {
      let inner = scope;
      if (ts.isClassLike(node) && node.name !== undefined) inner = node.name.text;
      if (isFunction(node) && node.body !== undefined) {
        const name = nameOf(node, source);
        inner = scope === "" ? name : `${scope}${ts.isClassLike(node.parent) ? "." : "/"}${name}`;
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        lengths.push({ file, name: inner, line: first + 1, lines: last - first + 1 });
      }
      ts.forEachChild(node, (child) => visit(child, inner));
    };
    visit(source, "");
  }
  return lengths.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}
