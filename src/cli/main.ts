// The `predex` command. Each subcommand lives in its own module; this file only dispatches.

import { runAdmin } from "./admin.js";
import { adminCategoryUsage } from "./admin-category.js";
import { adminExchangeUsage } from "./admin-exchange.js";
import { backupUsage, runBackup, runRestore } from "./backup.js";
import { demoUsage, runDemoCommand } from "./demo.js";
import { depositKeyUsage, runDepositKey } from "./deposit-key.js";
import { runDoctor } from "./doctor.js";
import { journalUsage, runJournal } from "./journal.js";
import { runOpenapi } from "./openapi.js";
import { runServe } from "./serve.js";

const usage = `Usage: predex <command>

Commands:
  serve [--demo]            start every listener; --demo also seeds the demo (a partner, categories,
                            markets, funded users) once and runs a market maker (PREDEX_DEMO_BOT=0: off)
  serve --role engine       an engine node on PostgreSQL (PREDEX_DATABASE_URL): a warm standby that
                            leads when it takes the lock (docs/deployment.md)
  serve --role api          the four listeners, commands forwarded to the engine leader (PostgreSQL)
${demoUsage}
  admin partner create      create a partner through the admin API
        [--name NAME] [--rsa-public-key-file FILE] [--commission-rate RATE] [--webhook-url URL]
        [--admin-url URL]   (default http://127.0.0.1:$PREDEX_ADMIN_PORT, token from
                             PREDEX_ADMIN_TOKEN or the data dir)
${adminCategoryUsage}
${adminExchangeUsage}
  doctor [--credentials FILE] [--url URL]
                            check a partner's signing against a running server
                            (default: data/credentials.json, http://127.0.0.1:$PREDEX_PORT)
  openapi [--out DIR]       write every listener's OpenAPI document (default docs/openapi)
${backupUsage}
${depositKeyUsage}

${journalUsage}

Operations (admin listener): GET /healthz and /readyz (no token; /readyz is 503 until the engine
runs, the database answers and, on PostgreSQL, an engine leader is live); GET /metrics (Prometheus text, admin token). Rate limits: 50
requests/s per merchant on the legacy listener; a partner's own limit on the signed host with
POST /admin/partners/{merchantId}/rate-limit {"rateLimitPerSecond": N | null} (502/2002 beyond).
Replay protection: POST /admin/partners/{merchantId} {"signedNonceRequired": true} refuses the
partner's requests other than GET/HEAD/OPTIONS that sign no x-ca-nonce (401/1401).

Environment: PREDEX_DATA_DIR, PREDEX_HOST, PREDEX_PORT, PREDEX_PUBLIC_PORT, PREDEX_LEGACY_PORT,
PREDEX_ADMIN_PORT, PREDEX_ADMIN_HOST, PREDEX_ADMIN_TOKEN, PREDEX_MASTER_KEY, PREDEX_DATABASE_URL,
PREDEX_SESSION_TTL_SECONDS, PREDEX_LOG_LEVEL, PREDEX_TLS_CERT_FILE, PREDEX_TLS_KEY_FILE, PREDEX_DEMO_BOT,
PREDEX_JOURNAL_ARCHIVE_DIR; PREDEX_BASE_URL, PREDEX_PUBLIC_BASE_URL, PREDEX_LEGACY_BASE_URL,
PREDEX_ADMIN_BASE_URL (where partners reach each listener, for the OpenAPI documents' servers)

Listeners (all optional):
  PREDEX_ADMIN_ALLOWED_HOSTS  DNS names the admin listener answers besides localhost and IP
                              addresses, comma-separated (a name reached through a load balancer)
  PREDEX_REQUEST_TIMEOUT_MS   a client's time to send a whole request, headers and body (30000);
                              a slower one is answered 408 and its connection closed
  PREDEX_LISTEN_BACKLOG       connections the kernel holds per listener before they are accepted
                              (4096; the kernel caps it at net.core.somaxconn)

Several nodes on PostgreSQL (docs/deployment.md; all optional):
  PREDEX_ENGINE_HOST          where an engine node's command port listens (127.0.0.1)
  PREDEX_ENGINE_PORT          its port (0: any free port, advertised through the database)
  PREDEX_ENGINE_ADVERTISE_HOST  the host API nodes reach it by (default PREDEX_ENGINE_HOST)
  PREDEX_ENGINE_LEASE_MS      a paused leader is replaced after this long (5000)
  PREDEX_FAILOVER_DEADLINE_MS an API node holds a command this long without a leader (20000)
  PREDEX_ENGINE_PROBE_PORT    an engine node's GET /healthz, /readyz (on PREDEX_ADMIN_HOST; 0: any free port)
  PREDEX_DATABASE_URL may list several hosts: postgres://u:p@db-a,db-b/predex?target_session_attrs=read-write

Chain wallet (docs/chain.md; without the first two, no chain: deposits by the operator only):
  PREDEX_CHAIN_RPC_URL        an EVM node's JSON-RPC URL; with PREDEX_USDT_CONTRACT (the token's
  PREDEX_USDT_CONTRACT        0x address) the deposit watcher runs
  PREDEX_CONFIRMATIONS        blocks a transfer needs, its own included, before it counts (12)
  PREDEX_CHAIN_POLL_MS        how often the node is asked for new blocks (250)
  PREDEX_CHAIN_START_BLOCK    where a first start begins watching (default: the head then)
  PREDEX_DEPOSIT_XPUB         account-level xpub of m/44'/60'/0'; user N's address is its child 0/N
                              (unset: a demo mnemonic in the data dir, on PostgreSQL derived from the
                              master key; printed at start; not for real funds). On PostgreSQL every
                              node must have the same key: see deposit-key show|adopt
  PREDEX_WITHDRAWAL_KEY_FILE  a file (chmod 600) with the hot wallet's 0x-hex private key: approved
                              withdrawals are paid on chain (unset: admin withdrawal export)
  PREDEX_WITHDRAWAL_REPLACE_AFTER_MS  a withdrawal's transaction unmined this long is replaced at
                              its nonce with higher fees (180000)
  PREDEX_WITHDRAWAL_FEE_BUMP_PERCENT  each replacement raises both fees by at least this (20; min 10)
  PREDEX_WITHDRAWAL_MAX_FEE_GWEI      the most maxFeePerGas any withdrawal transaction offers (500)

Secrets and mail:
  PREDEX_MASTER_KEY_FILE    a file holding the master key (64 hex digits), outside the data dir;
                            \`serve\` without --demo needs it or PREDEX_MASTER_KEY (make one:
                            openssl rand -hex 32) and never creates a key beside the database
  PREDEX_SMTP_URL           smtp://user:pass@host:587 or smtps://… for MFA email codes; unset, codes
                            are written to <data dir>/mail/outbox.jsonl (a warning says so at start)
  PREDEX_MAIL_FROM          the From address of that email (default predex <no-reply@predex.local>)`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return runServe(rest);
    case "admin":
      return runAdmin(rest);
    case "demo":
      return runDemoCommand(rest);
    case "doctor":
      return runDoctor(rest);
    case "openapi":
      return runOpenapi(rest);
    case "backup":
      return runBackup(rest);
    case "restore":
      return runRestore(rest);
    case "journal":
      return runJournal(rest);
    case "deposit-key":
      return runDepositKey(rest);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      console.log(usage);
      return 0;
    default:
      console.error(`predex: unknown command "${command}"\n\n${usage}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (exitCode) => {
    // serve keeps running until a signal; every other command ends here.
    if (exitCode !== -1) process.exitCode = exitCode;
  },
  (error: unknown) => {
    console.error(`predex: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
