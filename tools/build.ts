// `npm run build` (and `npm install`, through `prepare`): compiles src/ to JavaScript in dist/, which
// `predex` runs (bin/predex.js). The files and options are tsconfig.build.json's. Each file is
// transpiled on its own (TypeScript's transpileModule): the same output as `tsc -p
// tsconfig.build.json`, since the project compiles with isolatedModules and verbatimModuleSyntax,
// without checking types a second time (`npm run lint` checks them) — a third of tsc's time, which
// every `npm install` pays.
//
// The old build is removed first, so a source deleted since leaves no module behind (every routes/
// file found is loaded). The stamp is written last and dated when the build started: a source edited
// while it ran makes the build stale. Without TypeScript (an install with --omit=dev) there is no
// build: `predex` runs the sources through tsx and says so; the install itself still succeeds.

import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { buildDirectoryName, buildStampName, projectRoot } from "../bin/build-state.js";

const startedAt = new Date();
const buildDirectory = join(projectRoot, buildDirectoryName);

function fail(message: string, exitCode = 1): never {
  console.error(`predex build: ${message}`);
  process.exit(exitCode);
}

let ts: typeof import("typescript");
try {
  ts = (await import("typescript")).default;
} catch {
  // During `npm install` the platform still works from its sources; asked for directly, it is a failure.
  fail(
    "TypeScript is not installed (an install without development dependencies?): no compiled build. " +
      "`predex` runs the sources through tsx; build where `npm ci` installed everything and ship dist/.",
    process.env.npm_lifecycle_event === "prepare" ? 0 : 1,
  );
}

const configFile = join(projectRoot, "tsconfig.build.json");
const parsed = ts.getParsedCommandLineOfConfigFile(
  configFile,
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) =>
      fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")),
  },
);
if (parsed === undefined || parsed.errors.length > 0) fail(`${configFile} is not usable`);
const rootDir = parsed.options.rootDir!;

rmSync(buildDirectory, { recursive: true, force: true });
const problems: string[] = [];
for (const sourceFile of parsed.fileNames) {
  const relativePath = relative(rootDir, sourceFile).replace(/\.ts$/, ".js");
  const outputFile = join(buildDirectory, relativePath);
  const output = ts.transpileModule(readFileSync(sourceFile, "utf8"), {
    // NodeNext picks each file's format from package.json, which a single file's transpile cannot
    // see: the package is "type": "module", so every file is an ES module.
    compilerOptions: {
      ...parsed.options,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    },
    fileName: sourceFile,
    reportDiagnostics: true,
  });
  for (const diagnostic of output.diagnostics ?? []) {
    problems.push(
      `${relative(projectRoot, sourceFile)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`,
    );
  }
  mkdirSync(dirname(outputFile), { recursive: true });
  writeFileSync(outputFile, output.outputText);
  if (output.sourceMapText !== undefined) writeFileSync(`${outputFile}.map`, output.sourceMapText);
}
if (problems.length > 0) {
  rmSync(buildDirectory, { recursive: true, force: true });
  fail(`the sources do not compile, no build in dist/:\n${problems.join("\n")}`);
}
const stamp = join(buildDirectory, buildStampName);
writeFileSync(stamp, `${startedAt.toISOString()}\n`);
utimesSync(stamp, startedAt, startedAt);
console.log(
  `predex build: ${parsed.fileNames.length} files compiled into ${basename(buildDirectory)}/ in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(1)} s`,
);
