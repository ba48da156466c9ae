// The operator's desk on the admin listener: sign in with the admin token (kept in sessionStorage
// and sent as a bearer token), then one tab per part of the exchange. Every action is an admin API
// call; the desk holds no state of its own.

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import "../shared/style.css";
import { errorText } from "../shared/api.js";
import { admin, savedToken, saveToken, whenUnauthorized } from "./admin-api.js";
import { Applications, Categories } from "./Catalogue.js";
import { Markets } from "./Markets.js";
import { Overview } from "./Overview.js";
import { Partners, Users } from "./People.js";
import { Deposits, Withdrawals } from "./Wallet.js";

const tabs = [
  ["overview", "Overview"],
  ["markets", "Markets"],
  ["withdrawals", "Withdrawals"],
  ["deposits", "Deposits"],
  ["users", "Users"],
  ["partners", "Partners"],
  ["categories", "Categories"],
  ["applications", "Applications"],
] as const;
type Tab = (typeof tabs)[number][0];

function tabOf(hash: string): Tab {
  const name = hash.replace(/^#\/?/, "");
  return tabs.find(([id]) => id === name)?.[0] ?? "overview";
}

function SignIn({ onSignedIn, notice }: { onSignedIn: () => void; notice: string | null }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Any guarded read proves the token; the partner list is small.
      await admin("GET", "/admin/partners?pageSize=1", undefined, token.trim());
      saveToken(token.trim());
      onSignedIn();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main">
      <section
        class="panel stack"
        style={{ maxWidth: "30rem", margin: "3rem auto" }}
        aria-labelledby="signin-title"
      >
        <h1 id="signin-title">Operator's desk</h1>
        <p class="muted">
          Sign in with the admin token (<span class="mono">PREDEX_ADMIN_TOKEN</span>, printed at the first
          start). It stays in this tab only.
        </p>
        {notice !== null && <p class="notice">{notice}</p>}
        <form class="stack" onSubmit={submit}>
          <label style={{ display: "flex" }}>
            Admin token
            <input
              name="token"
              type="password"
              autoComplete="current-password"
              required
              value={token}
              onInput={(event) => setToken(event.currentTarget.value)}
            />
          </label>
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
        </form>
        {error !== null && (
          <p class="notice error" role="alert">
            {error}
          </p>
        )}
      </section>
    </main>
  );
}

function Desk({ onSignOut }: { onSignOut: () => void }) {
  const [tab, setTab] = useState<Tab>(() => tabOf(location.hash));
  useEffect(() => {
    const onHashChange = () => setTab(tabOf(location.hash));
    window.addEventListener("hashchange", onHashChange);
    return () => window.removeEventListener("hashchange", onHashChange);
  }, []);
  const go = (next: string) => {
    location.hash = `#/${next}`;
  };
  useEffect(() => {
    document.title = `${tabs.find(([id]) => id === tab)?.[1]} · predex desk`;
  }, [tab]);
  return (
    <>
      <header class="top">
        <span class="brand">
          predex <span class="brand-accent">operator's desk</span>
        </span>
        <span class="spacer" />
        <a href="/docs">Admin API docs</a>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <nav class="tabs" aria-label="Desk sections">
          {tabs.map(([id, label]) => (
            <button
              key={id}
              type="button"
              aria-current={tab === id ? "page" : undefined}
              onClick={() => go(id)}
            >
              {label}
            </button>
          ))}
        </nav>
        {tab === "overview" && <Overview go={go} />}
        {tab === "markets" && <Markets />}
        {tab === "withdrawals" && <Withdrawals />}
        {tab === "deposits" && <Deposits />}
        {tab === "users" && <Users />}
        {tab === "partners" && <Partners />}
        {tab === "categories" && <Categories />}
        {tab === "applications" && <Applications />}
      </main>
    </>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(() => savedToken() !== null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    whenUnauthorized(() => {
      saveToken(null);
      setNotice("The admin token was refused: sign in again.");
      setSignedIn(false);
    });
  }, []);
  if (!signedIn) return <SignIn notice={notice} onSignedIn={() => setSignedIn(true)} />;
  return (
    <Desk
      onSignOut={() => {
        saveToken(null);
        setNotice(null);
        setSignedIn(false);
      }}
    />
  );
}

render(<App />, document.getElementById("app")!);
