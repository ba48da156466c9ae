// The layers of predex, checked on every `npm test` (docs/architecture.md draws them). Imports point
// one way: core ← engine ← ports ← services ← surfaces ← composition. Adapters implement ports and
// import nothing above them. The contract is the wire: it imports nothing of the project, and the
// SDK imports only itself and the contract, so it can ship on its own (tools/pack-sdk.ts).
//
// Run: npx depcruise src tools --config .dependency-cruiser.cjs
// test/architecture/layers.test.ts proves each rule fires on a small fixture with a forbidden import.

/** Which layer a path is in. Keep docs/architecture.md in step with this table. */
const layers = {
  contract: "^src/contract/",
  sdk: "^src/sdk/",
  core: "^src/core/",
  engine: "^src/engine/",
  // Interfaces the services and surfaces use and the adapters implement, with the pure rules every
  // adapter must apply the same way (src/store/exchange-projection/: the rows each journal event
  // writes, for both stores' projectors), and the engine as services see it.
  ports: "^src/store/[^/]+[.]ts$|^src/store/exchange-projection/|^src/exchange/exchange-engine[.]ts$",
  adapters: "^src/store/(sqlite|memory|postgres)/",
  // The journal archiver is a worker on the engine's port (like the chain watcher): a service.
  services:
    "^src/(catalog|wallet|mfa|legacy|realtime|identity|gateway|chain|metrics|cluster)/|^src/exchange/journal-archiver[.]ts$",
  surfaces: "^src/api/",
  // Settings parsed from the environment: read by the surfaces and composition, never by services.
  settings: "^src/config([.]ts$|/)",
  // Builds the adapters and wires everything: the process entry points, the demo, and the host that
  // opens the engine on SQLite.
  composition: "^src/(server[.]ts|cli/|demo/|topology/)|^src/exchange/exchange-host[.]ts$",
  tools: "^tools/",
};

/** Everything of the project except the given layers. */
const projectExcept = (...allowed) => ({
  path: "^(src|tools)/",
  pathNot: allowed.map((name) => layers[name]),
});

/** A rule: modules of `layer` may import, of the project, only `allowed` (and their own layer). */
const onlyImports = (layer, allowed, comment) => ({
  name: `${layer}-imports-only-${allowed.join("-") || "itself"}`,
  comment,
  severity: "error",
  from: { path: layers[layer] },
  to: projectExcept(layer, ...allowed),
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A cycle means two modules cannot be understood (or moved) one without the other.",
      severity: "error",
      from: { path: "^(src|tools)/" },
      to: { circular: true },
    },
    onlyImports("contract", [], "The wire contract ships with the SDK: it imports nothing of the server."),
    onlyImports("sdk", ["contract"], "The SDK ships on its own: only itself and the contract."),
    onlyImports("core", [], "The core is pure: it imports only itself."),
    {
      name: "core-does-no-io",
      comment: "No node:* module and no package in src/core: time, ids and randomness are inputs.",
      severity: "error",
      from: { path: layers.core },
      to: { dependencyTypes: ["core", "npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg"] },
    },
    onlyImports("engine", ["core"], "The engine sequences and journals a decider; it knows no service."),
    onlyImports("ports", ["core", "engine", "contract"], "Ports describe what services need of a store."),
    onlyImports(
      "adapters",
      ["core", "engine", "ports", "contract"],
      "An adapter implements ports: it depends on them and below, never on a service or a surface.",
    ),
    {
      name: "adapters-stand-apart",
      comment: "One adapter does not reach into another (sqlite, memory, postgres).",
      severity: "error",
      from: { path: "^src/store/(sqlite|memory|postgres)/" },
      to: { path: "^src/store/(sqlite|memory|postgres)/", pathNot: "^src/store/$1/" },
    },
    onlyImports(
      "services",
      ["core", "engine", "ports", "contract"],
      "Services use ports (never an adapter) and are used by surfaces (never the other way).",
    ),
    onlyImports(
      "surfaces",
      ["core", "engine", "ports", "services", "contract", "settings"],
      "Surfaces get their adapters through PlatformDeps, built by composition.",
    ),
    onlyImports("settings", [], "Settings are parsed from the environment and import nothing."),
    onlyImports("tools", ["sdk", "contract"], "Tools that ship the SDK see only what they ship."),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
