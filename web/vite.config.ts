// Builds the web console (the market pages and the operator's desk) into web/dist, which the public
// and admin listeners serve (src/api/shared/console-pages.ts). Run by `npm install` (prepare) and
// `npm run build:web`; nothing built is committed.

import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/console/",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    rolldownOptions: {
      input: { market: `${root}market.html`, desk: `${root}desk.html` },
    },
  },
});
