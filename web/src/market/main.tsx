// The market pages of the public listener: `#/` lists the markets, `#/market/{id}` shows one.

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import "../shared/style.css";
import { MarketList } from "./MarketList.js";
import { MarketPage } from "./MarketPage.js";
import { prewarmMarketSocket } from "./market-feed.js";

function currentRoute(): { page: "list" } | { page: "market"; marketId: string } {
  const match = /^#\/market\/([0-9]{1,15})$/.exec(location.hash);
  return match === null ? { page: "list" } : { page: "market", marketId: match[1]! };
}

function skipToContent(event: Event) {
  // The hash is the router's: move focus without changing it.
  event.preventDefault();
  document.getElementById("main")?.focus();
}

function App() {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onHashChange = () => {
      setRoute(currentRoute());
      window.scrollTo(0, 0);
      document.getElementById("main")?.focus();
    };
    window.addEventListener("hashchange", onHashChange);
    return () => window.removeEventListener("hashchange", onHashChange);
  }, []);
  useEffect(() => {
    if (route.page === "list") document.title = "predex markets";
  }, [route]);
  return (
    <>
      <button type="button" class="skip-link" onClick={skipToContent}>
        Skip to content
      </button>
      <header class="top">
        <a class="brand" href="#/">
          predex <span class="brand-accent">markets</span>
        </a>
        <span class="spacer" />
        <a href="/docs">API docs</a>
      </header>
      <main id="main" tabIndex={-1}>
        {route.page === "list" ? (
          <MarketList />
        ) : (
          <MarketPage key={route.marketId} marketId={route.marketId} />
        )}
      </main>
    </>
  );
}

if (currentRoute().page === "market") prewarmMarketSocket();
render(<App />, document.getElementById("app")!);
