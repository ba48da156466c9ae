// Packs the partner SDK as a package of its own: src/sdk and src/contract (what the SDK imports, and
// nothing else of the server) compiled to JavaScript with type declarations, a package.json whose
// dependencies are the SDK's own (typebox, ws), and `npm pack` of that. No registry is needed: the
// compiler and the dependencies' types come from this repository's node_modules.
//
//   npm run pack:sdk [-- <destination directory>]     (default: the current directory)
//
// test/sdk/packed-sdk.test.ts installs the tarball into an empty project and signs requests through
// it against a real platform.

import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repositoryRoot = resolve(import.meta.dirname, "..");
export const sdkPackageName = "@predex/sdk";

interface RepositoryPackage {
  readonly version: string;
  readonly dependencies: Readonly<Record<string, string>>;
}

/** The SDK's package.json: its entry points and the two libraries it imports at run time. */
function sdkPackageJson(repository: RepositoryPackage): object {
  const entry = (path: string) => ({ types: `./dist/${path}.d.ts`, default: `./dist/${path}.js` });
  return {
    name: sdkPackageName,
    version: repository.version,
    description: "The predex partner SDK: gateway signer, REST clients, WebSocket clients, wire contract",
    type: "module",
    engines: { node: ">=20" },
    exports: {
      ".": entry("sdk/index"),
      "./legacy": entry("sdk/legacy/index"),
      "./ws": entry("sdk/ws/index"),
    },
    files: ["dist"],
    dependencies: {
      typebox: repository.dependencies.typebox,
      ws: repository.dependencies.ws,
    },
  };
}

const compilerOptions = {
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  declaration: true,
  rootDir: "src",
  outDir: "dist",
  types: ["node"],
};

/** Builds the package in a scratch directory and packs it into `destination`; returns the tarball's path. */
export function packSdk(destination: string): string {
  const repository = JSON.parse(
    readFileSync(join(repositoryRoot, "package.json"), "utf8"),
  ) as RepositoryPackage;
  const scratch = mkdtempSync(join(tmpdir(), "predex-sdk-pack-"));
  try {
    for (const folder of ["sdk", "contract"]) {
      cpSync(join(repositoryRoot, "src", folder), join(scratch, "src", folder), { recursive: true });
    }
    writeFileSync(join(scratch, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["src"] }));
    writeFileSync(join(scratch, "package.json"), `${JSON.stringify(sdkPackageJson(repository), null, 2)}\n`);
    // The compiler resolves typebox, ws and the Node types from this repository's node_modules. A
    // file of sdk or contract that imports anything else of the server fails to compile here.
    symlinkSync(join(repositoryRoot, "node_modules"), join(scratch, "node_modules"), "dir");
    execFileSync(process.execPath, [join(repositoryRoot, "node_modules/typescript/bin/tsc"), "-p", scratch], {
      stdio: "pipe",
    });
    rmSync(join(scratch, "node_modules"));
    mkdirSync(destination, { recursive: true });
    const packed = execFileSync("npm", ["pack", "--json", "--pack-destination", resolve(destination)], {
      cwd: scratch,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        npm_config_offline: "true",
        npm_config_audit: "false",
        npm_config_fund: "false",
      },
    });
    const [summary] = JSON.parse(packed) as [{ filename: string }];
    return join(resolve(destination), summary.filename);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  console.log(packSdk(process.argv[2] ?? process.cwd()));
}
